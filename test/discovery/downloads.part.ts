/** /downloads/: the files the arena serves, each with its SHA-256, as JSON, a page and Markdown; and where the API names them. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RUNNER_VERSION } from '../../infra/runner-package';
import { register, startTestApp, type TestApp } from '../support/test-app';

const BASE = 'http://arena.test';
const RUNNER = `arena-runner-${RUNNER_VERSION}.tgz`;
// Stand-ins for what `npm pack` writes: the folder is served as it is, whatever the bytes.
const FILES: Record<string, string> = { [RUNNER]: 'runner bytes', 'arena-runner-0.0.1.tgz': 'an older runner' };

let t: TestApp;
let folder: string;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-downloads-'));
  for (const [name, text] of Object.entries(FILES)) fs.writeFileSync(path.join(folder, name), text);
  // Not tarballs: never served.
  fs.writeFileSync(path.join(folder, 'notes.txt'), 'private');
  fs.writeFileSync(path.join(folder, '.hidden.tgz'), 'hidden');
  t = await startTestApp({}, { downloadsDir: folder });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const runCommand = `npx --yes --package ${BASE}/downloads/${RUNNER} arena-runner run --base-url ${BASE} --agent <id> --secret <AGENT_SECRET> -- <your-agent-command>`;

describe('GET /downloads/', () => {
  it('lists the tarballs with their sizes and SHA-256s as JSON, the runner first', async () => {
    const res = await get('/downloads/', { accept: '*/*' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      runner: {
        version: RUNNER_VERSION,
        url: `${BASE}/downloads/${RUNNER}`,
        sha256: sha256('runner bytes'),
        run_command: runCommand,
      },
      files: Object.entries(FILES)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, text]) => ({
          name,
          url: `${BASE}/downloads/${name}`,
          size_bytes: text.length,
          sha256: sha256(text),
        })),
    });
  });

  it('is a page for a browser and Markdown when asked for, both with the command and the checksum', async () => {
    const page = await get('/downloads/', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain(sha256('runner bytes'));
    expect(page.body).toContain(runCommand.replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    const markdown = await get('/downloads/', { accept: 'text/markdown' });
    expect(markdown.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(markdown.body).toContain(`\`\`\`sh\n${runCommand}\n\`\`\``);
    expect(markdown.body).toContain(`sha256sum -c ${RUNNER}.sha256`);
  });
});

describe('GET /downloads/<file>', () => {
  it('serves the bytes with their digest, and the .sha256 line sha256sum -c reads', async () => {
    const res = await get(`/downloads/${RUNNER}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('runner bytes');
    expect(res.headers).toMatchObject({
      'content-type': 'application/gzip',
      'content-disposition': `attachment; filename="${RUNNER}"`,
      'repr-digest': `sha-256=:${createHash('sha256').update('runner bytes').digest('base64')}:`,
      etag: `"${sha256('runner bytes')}"`,
    });
    const line = await get(`/downloads/${RUNNER}.sha256`);
    expect(line.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(line.body).toBe(`${sha256('runner bytes')}  ${RUNNER}\n`);
  });

  it.each(['notes.txt', '.hidden.tgz', 'missing.tgz', '..%2Fpackage.json', 'notes.txt.sha256'])(
    'answers 404 with a plain sentence for %s',
    async (name) => {
      const res = await get(`/downloads/${name}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        detail: expect.stringMatching(
          /^there is no download named .+; the downloads are listed at http:\/\/arena\.test\/downloads\/$/,
        ),
      });
    },
  );
});

describe('where the arena names its runner', () => {
  it('GET /api/version gives the download, its SHA-256 and the command', async () => {
    const body = (await get('/api/version')).json();
    expect(body.runner).toEqual({
      version: RUNNER_VERSION,
      url: `${BASE}/downloads/${RUNNER}`,
      sha256: sha256('runner bytes'),
      run_command: runCommand,
    });
    expect(body.pull.summary).toContain(runCommand);
  });

  it('llms.txt links the download and the listing', async () => {
    const text = (await get('/llms.txt')).body;
    expect(text).toContain(
      `- [arena-runner ${RUNNER_VERSION}](${BASE}/downloads/${RUNNER}): the runner for pull agents`,
    );
    expect(text).toContain(`- [Downloads](${BASE}/downloads/)`);
  });

  it("a pull agent's run_command runs the served runner, at creation and when read back", async () => {
    const owner = await register(t.app);
    const created = (
      await t.app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: owner.auth,
        payload: { name: 'puller', mode: 'pull' },
      })
    ).json();
    const expected = runCommand.replace('<id>', String(created.id));
    expect(created.run_command).toBe(expected);
    const read = (await t.app.inject({ method: 'GET', url: `/api/agents/${created.id}`, headers: owner.auth })).json();
    expect(read.run_command).toBe(expected);
  });
});

it('a server started without a build serves no runner and says so in the version', async () => {
  const bare = await startTestApp({}, { downloadsDir: path.join(folder, 'absent') });
  try {
    expect((await bare.app.inject({ url: '/downloads/' })).json()).toMatchObject({
      files: [],
      runner: { sha256: null },
    });
    expect((await bare.app.inject({ url: `/downloads/${RUNNER}` })).statusCode).toBe(404);
  } finally {
    await bare.close();
  }
});
