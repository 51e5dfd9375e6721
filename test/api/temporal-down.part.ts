import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app';
import { loadConfig } from '../../infra/config';
import { ormConfig } from '../../infra/db/orm.config';
import { WebhookClient } from '../../infra/webhook/client';
import { Prompt } from '../../infra/db/entities/prompt.entity';
import { addBattle } from '../../infra/db/repositories/battle.repository';
import { addDelivery, closeUnstartedDeliveries } from '../../infra/db/repositories/delivery.repository';
import { redeliver } from '../../services/redeliveries';
import type { WorkflowDeps } from '../../services/workflow-client';
import { closedPortUrl } from '../support/agent-server';
import { createTestDatabase, type TestDatabase } from '../support/test-db';
import { register } from '../support/test-app';

// The database is up, the Temporal frontend is not: nothing may be lost, and nothing may answer 500.
let db: TestDatabase;
let orm: MikroORM;
let temporal: Connection;
let webhooks: WebhookClient;
let app: FastifyInstance;
let workflows: WorkflowDeps;

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
  const client = new Client({ connection: temporal, namespace: config.temporalNamespace });
  workflows = { client, taskQueue: 'arena', gymRetrySeconds: 60, callTimeoutMs: 1500, eagerStart: false };
  app = await buildApp({
    config,
    orm,
    temporal: client,
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

  const pullAgent = async (owner: Awaited<ReturnType<typeof register>>, name = 'p') =>
    (
      await app.inject({ method: 'POST', url: '/api/agents', headers: owner.auth, payload: { name, mode: 'pull' } })
    ).json() as { id: number };
  const feedOf = async (agentId: number) =>
    (await app.inject({ method: 'GET', url: `/api/agents/${agentId}/activity` })).json().sessions as Array<{
      id: string;
      status: string;
      error: string | null;
    }>;

  it("answers 503 for a coding session and closes it as the arena's fault, not the agent's", async () => {
    const owner = await register(app);
    const agent = await pullAgent(owner);
    const res = await app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox`,
      headers: owner.auth,
      payload: { task: 'python/leap-year' },
    });
    expect(res.statusCode).toBe(503);
    const [session] = await feedOf(agent.id);
    expect(session).toMatchObject({ status: 'error', error: 'the delivery could not be started' });
    const [coding] = await orm.em
      .fork()
      .getConnection()
      .execute(`select arena_fault, ended_at from coding_sessions where session_id = ?`, [
        Number(session!.id.split('-')[1]),
      ]);
    expect(coding).toMatchObject({ arena_fault: true, ended_at: expect.any(String) });
  });

  it('answers 503 for a redelivery and closes the new delivery, leaving the original as it was', async () => {
    const owner = await register(app);
    const agent = await pullAgent(owner);
    await app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox`,
      headers: owner.auth,
      payload: { prompt: 'again' },
    });
    const [original] = await feedOf(agent.id);
    await expect(redeliver(orm.em.fork(), workflows, original!.id)).rejects.toMatchObject({ kind: 'unavailable' });
    const feed = await feedOf(agent.id);
    expect(feed).toHaveLength(2);
    expect(feed).toEqual([
      expect.objectContaining({ status: 'error', error: 'the delivery could not be started' }),
      expect.objectContaining({ id: original!.id, status: 'error' }),
    ]);
  });

  it('closes an unstarted live battle with its two deliveries, and leaves a delivery that already moved on', async () => {
    const [ownerA, ownerB, judge] = [await register(app), await register(app), await register(app)];
    const [a, b] = [await pullAgent(ownerA), await pullAgent(ownerB)];
    const em = orm.em.fork();
    const prompt = em.create(Prompt, { source: 'live', category: 'general', text: 'both of you' });
    const fields = { kind: 'main' as const, prompt, mode: 'pull' as const, category: 'general', deadlineSeconds: 60 };
    const sessionA = addDelivery(em, { ...fields, agent: a.id });
    const sessionB = addDelivery(em, { ...fields, agent: b.id });
    const answered = addDelivery(em, { ...fields, kind: 'sandbox', agent: b.id });
    await em.flush();
    const battle = addBattle(em, {
      prompt,
      judge: judge.userId,
      sessionA,
      sessionB,
      agentA: a.id,
      agentB: b.id,
      pairLow: Math.min(sessionA.id, sessionB.id),
      pairHigh: Math.max(sessionA.id, sessionB.id),
      live: true,
      status: 'running',
    });
    await em.flush();
    await em.getConnection().execute(`update sessions set status = 'answered' where id = ?`, [answered.id]);

    await closeUnstartedDeliveries(em, [sessionA.id, sessionB.id, answered.id], 'the delivery could not be started');

    const rows = await em
      .getConnection()
      .execute(`select id, status, error from sessions where id in (?, ?, ?) order by id`, [
        sessionA.id,
        sessionB.id,
        answered.id,
      ]);
    expect(rows).toEqual([
      { id: sessionA.id, status: 'error', error: 'the delivery could not be started' },
      { id: sessionB.id, status: 'error', error: 'the delivery could not be started' },
      { id: answered.id, status: 'answered', error: null },
    ]);
    const [voided] = await em.getConnection().execute(`select status from battles where id = ?`, [battle.id]);
    expect(voided).toEqual({ status: 'void' });
  });
});
