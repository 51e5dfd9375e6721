/**
 * The {detail} error model for what is refused before any handler runs (malformed, empty, too
 * large or too deeply nested bodies, bad URLs, unknown routes and wrong methods): the app needs
 * nothing behind it. The refusals that must also leave nothing stored are in ../errors.test.ts.
 */
import { buildOfflineApp, OFFLINE_AUTH, type OfflineApp } from '../../../support/offline-app';
import { expectDetail } from '../../../api/support/refusals';

let t: OfflineApp;
beforeAll(async () => {
  t = await buildOfflineApp();
});
afterAll(() => t.close());

describe('the {detail} error model', () => {
  it('an over-long path parameter and a malformed URL are 400, as {detail}', async () => {
    // 400 like any other parameter that breaks its documented rule (the router checks the length before the schema).
    const long = await t.app.inject({ method: 'GET', url: `/api/users/${'9'.repeat(150)}` });
    expect(long.statusCode).toBe(400);
    expect(expectDetail(long)).toBe('a path parameter is longer than 100 characters');
    const guide = await t.app.inject({ method: 'GET', url: `/docs/guides/${'é'.repeat(101)}` });
    expect(guide.statusCode).toBe(400);
    expectDetail(guide);
    const bad = await t.app.inject({ method: 'GET', url: '/api/users/%E0%A4%A' });
    expect(bad.statusCode).toBe(400);
    expect(expectDetail(bad)).toBe('the URL is not valid (bad percent-encoding)');
  });

  it.each([
    ['malformed JSON', '{"name": ', /malformed JSON/],
    ['an empty JSON body', '', /./],
  ])('%s is 400', async (_case, payload, detail) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: { ...OFFLINE_AUTH, 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(expectDetail(res)).toMatch(detail);
  });

  it('a JSON array where an object is expected is 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: OFFLINE_AUTH, payload: [1, 2] });
    expect(res.statusCode).toBe(400);
    expectDetail(res);
  });

  it('a body over 1 MiB is 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: { ...OFFLINE_AUTH, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'big', mode: 'pull', description: 'x'.repeat(1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(expectDetail(res)).toMatch(/too large/);
  });

  it('an unknown route is 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nope?x=1' });
    expect(res.statusCode).toBe(404);
    expect(expectDetail(res)).toBe('no route for GET /api/nope');
  });

  it('a wrong method on a known path is 405 with Allow', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/account', headers: OFFLINE_AUTH });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, PATCH');
    expect(expectDetail(res)).toBe('DELETE is not allowed on /api/account; it answers GET, HEAD, PATCH');
  });

  it('a malformed path id is 400, naming the id', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/agents/12abc', headers: OFFLINE_AUTH });
    expect(res.statusCode).toBe(400);
    expect(expectDetail(res)).toBe('id must be a whole number written in plain digits, such as 42');
  });

  describe('deeply nested JSON', () => {
    const unclosed = '['.repeat(200_000);
    const json = { 'content-type': 'application/json' };

    it('an unclosed 200 KB of [ is malformed JSON, 400', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: { ...OFFLINE_AUTH, ...json },
        payload: unclosed,
      });
      expect(res.statusCode).toBe(400);
      expect(expectDetail(res)).toMatch(/^malformed JSON body/);
    });
  });
});

describe('GET /api/version', () => {
  it('describes protocol 1 with push and pull summaries', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/version' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ version: 1, connection_modes: ['push', 'pull', 'a2a'], docs_url: '/docs/' });
    expect(body.push.signature_header).toBe('X-Arena-Signature');
    expect(body.prompt_payload).toMatch(/prompt_id, prompt, category, deadline_seconds/);
    for (const key of ['summary', 'auth', 'next_work', 'submit_result'])
      expect(body.pull[key]).toEqual(expect.any(String));
    expect(body.pull.auth).toMatch(/X-Arena-Secret/);
  });
});

describe('GET /health', () => {
  it('is 503 naming each part that is down, and API calls answer 503, not 500', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toEqual({ status: 'degraded', database: 'unavailable', temporal: 'unavailable' });
    const account = await t.app.inject({ method: 'GET', url: '/api/account', headers: OFFLINE_AUTH });
    expect(account.statusCode).toBe(503);
    expect(account.headers['retry-after']).toBe('5');
    expect(expectDetail(account)).toMatch(/database is unavailable/);
  });
});
