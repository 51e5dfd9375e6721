/**
 * The discovery checks that need the arena's stored state behind the app: the documents the API
 * catalog links to (its status is the health check), the catalog's Link header on pages that read
 * the database, and a registered key let through. The documents themselves are checked in
 * well-known.test.ts, on the app with nothing behind it.
 */
import { register, startTestApp, type TestApp } from '../support/test-app';
import { CATALOG_LINK, pathOf } from './support/catalog';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

it('links from the API catalog to documents that answer with what the link says', async () => {
  const linkset = (await get('/.well-known/api-catalog')).json().linkset;
  const [entry] = linkset;
  for (const relation of ['service-desc', 'service-doc', 'status'] as const) {
    for (const target of linkset.flatMap((e: Record<string, unknown[]>) => e[relation] ?? [])) {
      const linked = await get(pathOf(target.href));
      expect(linked.statusCode).toBe(200);
      expect(linked.headers['content-type']).toContain(
        target.type.startsWith('application/vnd.oai.openapi') ? 'application/json' : target.type,
      );
    }
  }
  expect((await get(pathOf(entry['service-desc'][0].href))).json().openapi).toBe('3.1.0');
});

it.each([
  ['the home page', 'GET', '/'],
  ['a public read', 'GET', '/api/leaderboard'],
  ['a HEAD request', 'HEAD', '/health'],
] as const)('puts the api-catalog Link on %s', async (_label, method, url) => {
  const r = await t.app.inject({ method, url });
  expect(r.statusCode).toBe(200);
  expect(r.headers.link).toBe(CATALOG_LINK);
});

it('answers HEAD /health like GET, without the body', async () => {
  const [head, full] = await Promise.all([t.app.inject({ method: 'HEAD', url: '/health' }), get('/health')]);
  expect(head.statusCode).toBe(200);
  expect(head.body).toBe('');
  expect(head.headers['content-type']).toBe(full.headers['content-type']);
});

it('lets a registered key through where the authentication metadata says to send it', async () => {
  const me = await register(t.app);
  expect((await get('/api/account', me.auth)).statusCode).toBe(200);
});
