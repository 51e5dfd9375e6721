/**
 * Scale-out: two API processes and two worker processes on one PostgreSQL and one Temporal
 * server. A long-poll on API 1 wakes for work queued through API 2 (the NOTIFY crosses
 * processes), and deliveries spread over both workers.
 */
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { freePort } from '../../infra/ports';
import { startAgentServer, answer, type TestAgentServer } from '../support/agent-server';
import { ApiProcess, apiEnv } from '../support/api-process';
import { register, startTestApp, type TestApp } from '../support/test-app';
import { WorkerProcess, workerEnv } from '../support/worker-process';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';

const LIMITS = { ARENA_SANDBOX_RATE_LIMIT: '100000', ARENA_WORK_POLL_RATE_LIMIT: '100000' };
/** A long-poll re-checks the database every 5 s on its own; a wake-up well before that came from the NOTIFY. */
const RECHECK_MS = 5_000;

let t: TestApp;
let client: Client;
let agents: TestAgentServer;
const apis: ApiProcess[] = [];
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  await ensureBuilt();
  // The test app provides the database and the accounts; the agents' requests and deliveries go through the processes.
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1', ...LIMITS });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  agents = await startAgentServer(answer(200, { response: 'spread' }));
  for (let i = 0; i < 2; i++) apis.push(new ApiProcess(apiEnv(t, await freePort(), LIMITS)));
  for (let i = 0; i < 2; i++) workers.push(new WorkerProcess(workerEnv(t)));
  await Promise.all([...apis.map((a) => a.ready), ...workers.map((w) => w.ready)]);
}, BUILD_TIMEOUT_MS + 240_000);
afterAll(async () => {
  await Promise.allSettled([...apis.map((a) => a.stop()), ...workers.map((w) => w.kill())]);
  await agents?.close();
  await t?.close();
}, 60_000);

async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: object,
): Promise<{ status: number; json: () => Promise<any> }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: () => res.json() };
}

it('wakes a long-poll on one API process for work queued through the other', async () => {
  const [one, two] = await Promise.all(apis.map((a) => a.ready));
  const owner = await register(t.app);
  const puller = await (await call(two!, 'POST', '/api/agents', owner.auth, { name: 'woken', mode: 'pull' })).json();
  const secret = { 'x-arena-secret': puller.webhook_secret };
  // The gym first, answered through API 1.
  const gym = client.workflow.getHandle(`gym-${puller.id}-1`);
  while ((await gym.describe()).status.name === 'RUNNING') {
    const res = await call(one!, 'GET', `/api/agents/${puller.id}/work/next?wait=2`, secret);
    if (res.status === 200)
      await call(one!, 'POST', `/api/agents/${puller.id}/work/${(await res.json()).work_id}/result`, secret, {
        response: 'gym',
      });
  }
  const wakes: number[] = [];
  for (let round = 0; round < 3; round++) {
    const polling = call(one!, 'GET', `/api/agents/${puller.id}/work/next?wait=30`, secret).then(async (res) => ({
      res,
      at: Date.now(),
    }));
    // Let the long-poll settle into waiting on API 1 before the work is queued through API 2.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const queuedAt = Date.now();
    const task = await (
      await call(two!, 'POST', `/api/agents/${puller.id}/sandbox`, owner.auth, { prompt: `wake ${round}` })
    ).json();
    const { res, at } = await polling;
    expect(res.status).toBe(200);
    expect((await res.json()).work_id).toBe(task.id);
    wakes.push(at - queuedAt);
    await call(one!, 'POST', `/api/agents/${puller.id}/work/${task.id}/result`, secret, { response: 'done' });
  }
  console.log(
    `scale-out: long-poll on API 1 woken ${wakes.map((ms) => `${ms} ms`).join(', ')} after work was queued through API 2`,
  );
  for (const ms of wakes) expect(ms).toBeLessThan(RECHECK_MS - 1_000);
}, 120_000);

it('spreads deliveries over both workers', async () => {
  const [one, two] = await Promise.all(apis.map((a) => a.ready));
  const owner = await register(t.app);
  const pusher = await (
    await call(one!, 'POST', '/api/agents', owner.auth, { name: 'spread', webhook_url: agents.url })
  ).json();
  await client.workflow.getHandle(`gym-${pusher.id}-1`).result();
  const ids: string[] = [];
  for (let i = 0; i < 30; i++)
    ids.push(
      (
        await (
          await call(i % 2 ? one! : two!, 'POST', `/api/agents/${pusher.id}/sandbox`, owner.auth, {
            prompt: `task ${i}`,
          })
        ).json()
      ).id,
    );
  const byWorker = new Map<string, number>();
  for (const id of ids) {
    const handle = client.workflow.getHandle(`delivery-${id.split('-')[1]}`);
    expect(await handle.result()).toEqual({ status: 'answered' });
    const started = (await handle.fetchHistory()).events!.find(
      (e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
    );
    const identity = started!.activityTaskStartedEventAttributes!.identity!;
    byWorker.set(identity, (byWorker.get(identity) ?? 0) + 1);
  }
  console.log(
    `scale-out: ${ids.length} deliveries' webhook calls ran on ${[...byWorker].map(([who, n]) => `${who}: ${n}`).join(', ')}`,
  );
  expect(byWorker.size).toBe(2);
}, 180_000);
