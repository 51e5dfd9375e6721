/**
 * Paths name things by canonical decimal ids only, and a known path asked with the wrong method
 * answers 405 with Allow: both are refused before any handler, so the app needs nothing behind it.
 * That the canonical id finds its agent is in ../path-ids.test.ts.
 */
import { buildOfflineApp, OFFLINE_AUTH, type OfflineApp } from '../../../support/offline-app';
import { idSpellings } from '../../../api/support/refusals';

let t: OfflineApp;
beforeAll(async () => {
  t = await buildOfflineApp();
});
afterAll(() => t.close());

const agentId = 7;

describe('path ids', () => {
  it('every other spelling of it is 400 on every API route with an id', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const routes = Object.entries(doc.paths).flatMap(([path, item]) =>
      /\{(id|battle_id)\}/.test(path)
        ? Object.keys(item).map((method) => ({ method: method.toUpperCase(), path }))
        : [],
    );
    expect(routes.length).toBeGreaterThanOrEqual(15);
    for (const spelled of idSpellings(agentId)) {
      for (const { method, path } of routes) {
        const url = path
          .replace(/\{(id|battle_id)\}/, spelled)
          .replace('{work_id}', 'main-1')
          .replace('{session_id}', 'sandbox-1');
        const res = await t.app.inject({
          method: method as 'GET',
          url,
          headers: { ...OFFLINE_AUTH, 'x-arena-secret': 'x' },
          ...(method === 'GET' ? {} : { payload: {} }),
        });
        expect({ url: `${method} ${url}`, status: res.statusCode }).toEqual({ url: `${method} ${url}`, status: 400 });
        expect(res.json().detail).toMatch(
          /^(id|battle_id) must be a whole number written in plain digits, such as 42$/,
        );
      }
    }
  });

  it('zero and ids past the largest are 400 too', async () => {
    for (const id of ['0', '-1', '2147483648', '99999999999999999999']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/users/${id}` });
      expect({ id, status: res.statusCode }).toEqual({ id, status: 400 });
    }
  });
});

describe('a known path with the wrong method', () => {
  it.each([
    ['DELETE', '/api/agents/7', 'GET, HEAD, PATCH'],
    ['PUT', '/api/agents', 'GET, HEAD, POST'],
    ['QUERY', '/api/leaderboard', 'GET, HEAD'],
    ['TRACE', '/health', 'GET, HEAD'],
    ['GET', '/api/register', 'POST'],
    ['OPTIONS', '/api/agents/7/work/main-1/result', 'POST'],
    ['DELETE', '/login', 'GET, HEAD, POST'],
  ])('%s %s is 405 with Allow: %s, before any authentication', async (method, url, allow) => {
    const res = await t.app.inject({ method: method as 'GET', url });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ detail: `${method} is not allowed on ${url}; it answers ${allow}` });
  });

  it('a HEAD to a path without GET is 405 with no body', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/api/register' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body).toBe('');
  });

  it('an unknown path is still 404', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.headers.allow).toBeUndefined();
  });
});
