/**
 * With no ARENA_PUBLIC_URL, absolute links name the address the arena was reached at: an arena
 * browsed at 127.0.0.1 does not send people to localhost. With one, the request's Host is ignored.
 */
import { createHash } from 'node:crypto';
import { buildOfflineApp, type OfflineApp } from '../support/offline-app';

let unset: OfflineApp;
let set: OfflineApp;
beforeAll(async () => {
  unset = await buildOfflineApp({ ARENA_PUBLIC_URL: undefined, PORT: '3000' });
  set = await buildOfflineApp({});
});
afterAll(async () => {
  await unset.close();
  await set.close();
});

const get = (t: OfflineApp, url: string, host: string) => t.app.inject({ method: 'GET', url, headers: { host } });

describe('with no public URL set', () => {
  it.each([
    '/llms.txt',
    '/docs/',
    '/docs/guides/quick-start.md',
    '/docs/guides/pull-mode',
    '/.well-known/agent-skills/agent-arena/SKILL.md',
    '/.well-known/api-catalog',
    '/openapi.json',
    '/api/version',
  ])('%s names the address it was reached at', async (url) => {
    const res = await get(unset, url, '127.0.0.1:3000');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http://127.0.0.1:3000');
    expect(res.body).not.toContain('http://localhost:3000');
  });

  it("serves the skill byte for byte as that address's index digest says", async () => {
    const index = (await get(unset, '/.well-known/agent-skills/index.json', '127.0.0.1:4000')).json();
    const [entry] = index.skills;
    expect(entry.url).toBe('http://127.0.0.1:4000/.well-known/agent-skills/agent-arena/SKILL.md');
    const skill = await get(unset, '/.well-known/agent-skills/agent-arena/SKILL.md', '127.0.0.1:4000');
    expect(entry.digest).toBe(`sha256:${createHash('sha256').update(skill.rawPayload).digest('hex')}`);
  });

  it('takes only a plain host and port from the header', async () => {
    for (const host of ['evil.example/path', 'a b', 'x@y']) {
      const res = await get(unset, '/llms.txt', host);
      expect(res.body).toContain('http://localhost:3000/docs/');
    }
    expect((await get(unset, '/llms.txt', '[::1]:3000')).body).toContain('http://[::1]:3000/docs/');
  });
});

it('with a public URL set, names it whatever the Host', async () => {
  const res = await get(set, '/llms.txt', '127.0.0.1:3000');
  expect(res.body).toContain('http://arena.test/docs/');
  expect(res.body).not.toContain('127.0.0.1');
});
