/**
 * The {detail} error model where a refusal must also leave nothing stored, or needs the database
 * and Temporal (the health check); the refusals made before any handler are in offline/errors.part.ts.
 */
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { expectDetail } from './support/refusals';

let t: TestApp;
let me: Registered;
beforeAll(async () => {
  t = await startTestApp();
  me = await register(t.app);
});
afterAll(() => t.close());

describe('the {detail} error model', () => {
  it('text holding NUL characters is 400 wherever it comes, and stores nothing (PostgreSQL cannot store them)', async () => {
    const body = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: me.auth,
      payload: { name: 'a\u0000b', mode: 'pull' },
    });
    expect(body.statusCode).toBe(400);
    expect(expectDetail(body)).toBe('name must not contain NUL (\\u0000) characters');
    const nested = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: me.auth,
      payload: { name: 'ok', mode: 'pull', tools_claimed: ['x', 'y\u0000'] },
    });
    expect(expectDetail(nested)).toBe('tools_claimed.1 must not contain NUL (\\u0000) characters');
    const query = await t.app.inject({ method: 'GET', url: '/api/users?q=a%00b' });
    expect(query.statusCode).toBe(400);
    expect(expectDetail(query)).toBe('q must not contain NUL (\\u0000) characters');
    expect((await t.app.inject({ method: 'GET', url: '/api/agents', headers: me.auth })).json()).toEqual([]);
  });

  it('any content type other than JSON is 415 on the API, text/plain and forms included', async () => {
    const bodies: Array<[string, string]> = [
      ['text/xml', '<agent/>'],
      ['text/plain', '{"name": "plain", "mode": "pull"}'],
      ['text/plain; charset=utf-8', 'hello'],
      ['application/x-www-form-urlencoded', 'name=form&mode=pull'],
      ['multipart/form-data; boundary=x', '--x--'],
    ];
    for (const [type, payload] of bodies) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: { ...me.auth, 'content-type': type },
        payload,
      });
      expect({ type, status: res.statusCode }).toEqual({ type, status: 415 });
      expect(expectDetail(res)).toBe(`unsupported content type ${type}; send application/json`);
    }
    const register = await t.app.inject({
      method: 'POST',
      url: '/api/register',
      headers: { 'content-type': 'text/plain' },
      payload: 'hi',
      remoteAddress: '10.9.9.9',
    });
    expect(register.statusCode).toBe(415);
    expect((await t.app.inject({ method: 'GET', url: '/api/agents', headers: me.auth })).json()).toEqual([]);
  });

  describe('deeply nested JSON', () => {
    // 200 KB of arrays and 600 KB of objects: far past any real body, well under the 1 MiB limit.
    const arrays = '['.repeat(100_000) + ']'.repeat(100_000);
    const objects = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const json = { 'content-type': 'application/json' };

    it.each([
      ['arrays', arrays],
      ['objects', objects],
    ])(
      'is 400 on a public route, an authenticated one and before the agent secret is checked (%s)',
      async (_shape, payload) => {
        const answers = [
          await t.app.inject({
            method: 'POST',
            url: '/api/register',
            headers: json,
            payload,
            remoteAddress: '10.9.9.10',
          }),
          await t.app.inject({ method: 'POST', url: '/api/agents', headers: { ...me.auth, ...json }, payload }),
          await t.app.inject({ method: 'PATCH', url: '/api/account', headers: { ...me.auth, ...json }, payload }),
          await t.app.inject({
            method: 'POST',
            url: '/api/agents/1/work/main-1/result',
            headers: { ...json, 'x-arena-secret': 'wrong' },
            payload,
          }),
        ];
        for (const res of answers) {
          expect(res.statusCode).toBe(400);
          expect(expectDetail(res)).toBe('the JSON body is nested too deeply (at most 64 levels)');
        }
        expect((await t.app.inject({ method: 'GET', url: '/api/agents', headers: me.auth })).json()).toEqual([]);
      },
    );

    // The website's hooks (its session and CSRF cookies, the log-in budget) read the database first.
    it('is refused on the website too, as a page', async () => {
      const res = await t.app.inject({ method: 'POST', url: '/login', headers: json, payload: objects });
      expect(res.statusCode).toBe(400);
    });

    it('nesting up to the limit is left to the route', async () => {
      const deep = (arrays: number) => JSON.parse('['.repeat(arrays) + ']'.repeat(arrays)) as unknown;
      // The body object is level 1; the extra field holds the rest.
      const ok = await t.app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: me.auth,
        payload: { name: 'nested', mode: 'pull', extra: deep(63) },
      });
      expect(ok.statusCode).toBe(201);
      const over = await t.app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: me.auth,
        payload: { name: 'nested', mode: 'pull', extra: deep(64) },
      });
      expect(over.statusCode).toBe(400);
      expect(expectDetail(over)).toBe('the JSON body is nested too deeply (at most 64 levels)');
      await t.app.inject({ method: 'POST', url: `/api/agents/${ok.json().id}/deactivate`, headers: me.auth });
    });
  });
});

describe('GET /health', () => {
  it('is 200 when the database and Temporal answer', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: 'ok', temporal: 'ok' });
  });
});
