import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { Connection } from '@temporalio/client';
import { buildApp } from '../../api/app';
import { loadConfig } from '../../infra/config';
import { ormConfig } from '../../infra/db/orm.config';
import { WebhookClient } from '../../infra/webhook/client';
import { closedPortUrl } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

let t: TestApp;
let me: Registered;
beforeAll(async () => {
  t = await startTestApp();
  me = await register(t.app);
});
afterAll(() => t.close());

function expectDetail(res: { headers: Record<string, unknown>; json(): unknown }) {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['detail']);
  expect(typeof body.detail).toBe('string');
  expect(body.detail).not.toMatch(/\n\s+at /);
  return body.detail as string;
}

describe('the {detail} error model', () => {
  it('text holding NUL characters is 400 wherever it comes, and stores nothing (PostgreSQL cannot store them)', async () => {
    const body = await t.app.inject({ method: 'POST', url: '/api/agents', headers: me.auth, payload: { name: 'a\u0000b', mode: 'pull' } });
    expect(body.statusCode).toBe(400);
    expect(expectDetail(body)).toBe('body.name: must not contain NUL (\\u0000) characters');
    const nested = await t.app.inject({ method: 'POST', url: '/api/agents', headers: me.auth, payload: { name: 'ok', mode: 'pull', tools_claimed: ['x', 'y\u0000'] } });
    expect(expectDetail(nested)).toBe('body.tools_claimed.1: must not contain NUL (\\u0000) characters');
    const query = await t.app.inject({ method: 'GET', url: '/api/users?q=a%00b' });
    expect(query.statusCode).toBe(400);
    expect(expectDetail(query)).toBe('query.q: must not contain NUL (\\u0000) characters');
    expect((await t.app.inject({ method: 'GET', url: '/api/agents', headers: me.auth })).json()).toEqual([]);
  });

  it('an over-long path parameter is 414 and a malformed URL 400, both as {detail}', async () => {
    const long = await t.app.inject({ method: 'GET', url: `/api/users/${'9'.repeat(150)}` });
    expect(long.statusCode).toBe(414);
    expect(expectDetail(long)).toBe('a path parameter is longer than 100 characters');
    const bad = await t.app.inject({ method: 'GET', url: '/api/users/%E0%A4%A' });
    expect(bad.statusCode).toBe(400);
    expect(expectDetail(bad)).toBe('the URL is not valid (bad percent-encoding)');
  });

  it('malformed JSON is 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: { ...me.auth, 'content-type': 'application/json' }, payload: '{"name": ' });
    expect(res.statusCode).toBe(400);
    expect(expectDetail(res)).toMatch(/malformed JSON/);
  });

  it('an empty JSON body is 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: { ...me.auth, 'content-type': 'application/json' }, payload: '' });
    expect(res.statusCode).toBe(400);
    expectDetail(res);
  });

  it('a JSON array where an object is expected is 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: me.auth, payload: [1, 2] });
    expect(res.statusCode).toBe(400);
    expectDetail(res);
  });

  it('a body over 1 MiB is 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: { ...me.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'big', mode: 'pull', description: 'x'.repeat(1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(expectDetail(res)).toMatch(/too large/);
  });

  it('an unsupported content type is 415', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: { ...me.auth, 'content-type': 'text/xml' }, payload: '<agent/>' });
    expect(res.statusCode).toBe(415);
    expect(expectDetail(res)).toMatch(/application\/json/);
  });

  it('an unknown route is 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nope?x=1' });
    expect(res.statusCode).toBe(404);
    expect(expectDetail(res)).toBe('no route for GET /api/nope');
  });

  it('a wrong method on a known path is 404', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/account', headers: me.auth });
    expect(res.statusCode).toBe(404);
    expectDetail(res);
  });

  it('a malformed path id is 400', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/agents/12abc', headers: me.auth });
    expect(res.statusCode).toBe(400);
    expect(expectDetail(res)).toMatch(/params\.id/);
  });
});

describe('GET /api/version', () => {
  it('describes protocol 1 with push and pull summaries', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/version' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ version: 1, connection_modes: ['push', 'pull'], docs_url: '/docs/' });
    expect(body.push.signature_header).toBe('X-Arena-Signature');
    expect(body.prompt_payload).toMatch(/prompt_id, prompt, category, deadline_seconds/);
    for (const key of ['summary', 'auth', 'next_work', 'submit_result']) expect(body.pull[key]).toEqual(expect.any(String));
    expect(body.pull.auth).toMatch(/X-Arena-Secret/);
  });
});

describe('GET /health', () => {
  it('is 200 when the database and Temporal answer', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: 'ok', temporal: 'ok' });
  });

  it('is 503 naming each part that is down, and API calls answer 503, not 500', async () => {
    const deadDb = new URL(await closedPortUrl());
    const orm = await MikroORM.init(ormConfig(`postgres://nobody:x@127.0.0.1:${deadDb.port}/none`, { connect: false, pool: { min: 0, max: 1, acquireTimeoutMillis: 2000 } }));
    const temporal = Connection.lazy({ address: `127.0.0.1:${deadDb.port}` });
    const webhooks = new WebhookClient({ allowPrivate: true });
    const config = {
      ...loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/x', TEMPORAL_ADDRESS: '127.0.0.1:1', LOG_LEVEL: 'silent' }),
      encryptionKey: randomBytes(32),
    };
    const down = await buildApp({ config, orm, temporal, webhooks });
    try {
      const health = await down.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toEqual({ status: 'degraded', database: 'unavailable', temporal: 'unavailable' });
      const account = await down.inject({ method: 'GET', url: '/api/account', headers: me.auth });
      expect(account.statusCode).toBe(503);
      expect(account.headers['retry-after']).toBe('5');
      expect(expectDetail(account)).toMatch(/database is unavailable/);
    } finally {
      await down.close();
      await Promise.allSettled([orm.close(), temporal.close(), webhooks.close()]);
    }
  });
});
