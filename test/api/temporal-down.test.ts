import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app';
import { loadConfig } from '../../infra/config';
import { ormConfig } from '../../infra/db/orm.config';
import { WebhookClient } from '../../infra/webhook/client';
import { closedPortUrl } from '../support/agent-server';
import { createTestDatabase, type TestDatabase } from '../support/test-db';
import { register } from '../support/test-app';

// The database is up, the Temporal frontend is not: nothing may be lost, and nothing may answer 500.
let db: TestDatabase;
let orm: MikroORM;
let temporal: Connection;
let webhooks: WebhookClient;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await MikroORM.init(ormConfig(db.url));
  const deadPort = new URL(await closedPortUrl()).port;
  temporal = Connection.lazy({ address: `127.0.0.1:${deadPort}`, connectTimeout: 1000 });
  webhooks = new WebhookClient({ allowPrivate: true });
  const config = {
    ...loadConfig({ DATABASE_URL: db.url, TEMPORAL_ADDRESS: `127.0.0.1:${deadPort}`, LOG_LEVEL: 'silent' }),
    encryptionKey: randomBytes(32),
  };
  app = await buildApp({
    config,
    orm,
    temporal: new Client({ connection: temporal, namespace: config.temporalNamespace }),
    notifier: { subscribe: () => undefined, unsubscribe: () => undefined },
    webhooks,
    workflowCallTimeoutMs: 1500,
  });
});
afterAll(async () => {
  await app.close();
  await Promise.allSettled([orm.close(), temporal.close(), webhooks.close()]);
  await db.drop();
});

describe('with Temporal unreachable', () => {
  it('still creates a pull agent and shows its secret, leaving the gym unstarted', async () => {
    const owner = await register(app);
    const res = await app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'p', mode: 'pull' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().webhook_secret).toMatch(/^agsec_/);
    const detail = (
      await app.inject({ method: 'GET', url: `/api/agents/${res.json().id}`, headers: owner.auth })
    ).json();
    expect(detail.gym).toMatchObject({ started_at: null, gym_complete: false });

    const restart = await app.inject({
      method: 'POST',
      url: `/api/agents/${res.json().id}/gym/restart`,
      headers: owner.auth,
    });
    expect(restart.statusCode).toBe(503);
    expect(restart.headers['retry-after']).toBe('5');
    expect(restart.json().detail).toBe('the workflow service is unavailable; try again shortly');
  });

  it('answers 503 for a sandbox task and leaves no pending session behind', async () => {
    const owner = await register(app);
    const agent = (
      await app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: owner.auth,
        payload: { name: 'p', mode: 'pull' },
      })
    ).json();
    const res = await app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox`,
      headers: owner.auth,
      payload: { prompt: 'hi' },
    });
    expect(res.statusCode).toBe(503);
    const feed = (await app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity` })).json();
    expect(feed.sessions).toEqual([
      expect.objectContaining({ status: 'error', error: 'the delivery could not be started' }),
    ]);
  });
});
