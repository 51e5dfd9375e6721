/**
 * Fault: PostgreSQL stops in the middle of a run and starts again. Meanwhile the API answers 503
 * (never 500) and /health names the database; deliveries in flight finish once it is back. This
 * file runs its own PostgreSQL, so stopping it touches no other test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../infra/embedded/postgres';
import { freePort } from '../../infra/ports';
import { startAgentServer, type TestAgentServer } from '../support/agent-server';
import { prepareDatabase } from '../support/test-db';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { eventually } from '../support/wait';

let dir: string;
let port: number;
let pg: EmbeddedPostgres;
let t: TestApp;
let client: Client;
let agents: TestAgentServer;
let owner: Registered;
let markDatabaseDown: () => void;
const databaseDown = new Promise<void>((resolve) => (markDatabaseDown = resolve));

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-outage-'));
  port = await freePort();
  pg = await startEmbeddedPostgres({ dataDir: dir, port });
  await prepareDatabase(pg.url);
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1' }, { databaseUrl: pg.url, pastTheGym: false });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  // Sandbox prompts are held open at the agent and answered only once the database is down.
  agents = await startAgentServer((req, res) => {
    const { category, prompt } = JSON.parse(req.body);
    const respond = () =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ response: `answer to ${prompt}` }));
    if (category === 'sandbox') void databaseDown.then(respond);
    else respond();
  });
  await t.startWorker();
  owner = await register(t.app);
}, 120_000);
afterAll(async () => {
  await agents?.close();
  await t?.close();
  await pg?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

it('answers 503 naming the database while PostgreSQL is down, and finishes the deliveries in flight once it is back', async () => {
  const create = async (payload: object) =>
    (await t.app.inject({ method: 'POST', url: '/api/agents', headers: owner.auth, payload })).json();
  const pusher = await create({ name: 'pusher', webhook_url: agents.url });
  const puller = await create({ name: 'puller', mode: 'pull' });
  const secret = { 'x-arena-secret': puller.webhook_secret };
  // The pull agent's gym: answer until it is complete.
  const gym = client.workflow.getHandle(`gym-${puller.id}-1`);
  while ((await gym.describe()).status.name === 'RUNNING') {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/agents/${puller.id}/work/next?wait=1`,
      headers: secret,
    });
    if (res.statusCode === 200)
      await t.app.inject({
        method: 'POST',
        url: `/api/agents/${puller.id}/work/${res.json().work_id}/result`,
        headers: secret,
        payload: { response: 'gym' },
      });
  }
  await client.workflow.getHandle(`gym-${pusher.id}-1`).result();

  const sandbox = async (agentId: number, prompt: string) =>
    (
      await t.app.inject({
        method: 'POST',
        url: `/api/agents/${agentId}/sandbox`,
        headers: owner.auth,
        payload: { prompt, deadline_seconds: 120 },
      })
    ).json().id as string;
  const pushTasks = [await sandbox(pusher.id, 'p1'), await sandbox(pusher.id, 'p2'), await sandbox(pusher.id, 'p3')];
  const pullTasks = [await sandbox(puller.id, 'q1'), await sandbox(puller.id, 'q2')];
  const leased: string[] = [];
  while (leased.length < pullTasks.length) {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/agents/${puller.id}/work/next?wait=2`,
      headers: secret,
    });
    if (res.statusCode === 200) leased.push(res.json().work_id);
  }
  await eventually(
    async () =>
      agents.received.filter((r) => JSON.parse(r.body).category === 'sandbox').length === 3 ? true : undefined,
    'the pushes to be open',
  );

  await pg.stop();
  // The agents answer now: the worker has their answers while it cannot write them.
  markDatabaseDown();
  const pushHandles = pushTasks.map((id) => client.workflow.getHandle(`delivery-${id.split('-')[1]}`));
  await eventually(async () => {
    const tried = await Promise.all(
      pushHandles.map(async (handle) => {
        // Either the activity handed its unwritten answer back, or it failed and is being retried.
        const events = (await handle.fetchHistory()).events ?? [];
        const pending = (await handle.describe()).raw.pendingActivities?.[0];
        return events.some((e) => e.activityTaskCompletedEventAttributes) || (pending?.attempt ?? 0) > 1;
      }),
    );
    return tried.every(Boolean) ? true : undefined;
  }, 'the worker to have tried to write the answers');
  const statuses: number[] = [];
  const during = async (
    method: 'GET' | 'POST',
    url: string,
    headers: Record<string, string> = {},
    payload?: object,
  ) => {
    const res = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    statuses.push(res.statusCode);
    return res;
  };
  const health = await during('GET', '/health');
  expect(health.statusCode).toBe(503);
  expect(health.json()).toEqual({ status: 'degraded', database: 'unavailable', temporal: 'ok' });
  const account = await during('GET', '/api/account', owner.auth);
  expect(account.statusCode).toBe(503);
  expect(account.json()).toEqual({ detail: 'the database is unavailable; try again shortly' });
  expect(account.headers['retry-after']).toBe('5');
  await during('POST', `/api/agents/${pusher.id}/sandbox`, owner.auth, { prompt: 'during' });
  await during('GET', `/api/agents/${pusher.id}/activity`);
  await during('GET', `/api/agents/${puller.id}/work/next`, secret);
  await during('POST', `/api/agents/${puller.id}/work/${leased[0]}/result`, secret, { response: 'too early' });
  await during('POST', '/api/register');
  const page = await during('GET', '/users', { accept: 'text/html' });
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(statuses.every((s) => s === 503)).toBe(true);

  pg = await startEmbeddedPostgres({ dataDir: dir, port });
  await eventually(
    async () => ((await t.app.inject({ method: 'GET', url: '/health' })).statusCode === 200 ? true : undefined),
    'the API to see the database again',
    60_000,
  );
  // The runner posts its results again now that the API can take them.
  for (const workId of leased) {
    const posted = await eventually(
      async () => {
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/agents/${puller.id}/work/${workId}/result`,
          headers: secret,
          payload: { response: `answer to ${workId}` },
        });
        return res.statusCode === 200 ? res : undefined;
      },
      `the result of ${workId}`,
      60_000,
    );
    expect(posted.statusCode).toBe(200);
  }
  const results = await Promise.all(
    [...pushTasks, ...pullTasks].map((id) => client.workflow.getHandle(`delivery-${id.split('-')[1]}`).result()),
  );
  expect(results).toEqual([...pushTasks, ...pullTasks].map(() => ({ status: 'answered' })));
  const feed = (await t.app.inject({ method: 'GET', url: `/api/agents/${pusher.id}/activity` })).json();
  for (const [i, id] of pushTasks.entries())
    expect(feed.sessions.find((s: { id: string }) => s.id === id).response).toBe(`answer to p${i + 1}`);
  console.log(
    `database outage: ${statuses.length} requests while PostgreSQL was down, ${statuses.filter((s) => s === 503).length} answered 503, ` +
      `${statuses.filter((s) => s >= 500 && s !== 503).length} other 5xx; ${results.length} deliveries in flight finished after it returned`,
  );
}, 300_000);
