/**
 * Durability: the worker process is killed (SIGKILL) with deliveries in flight, a new worker process
 * takes over, and every delivery ends recorded exactly once, no push prompt sent twice.
 *
 * The worker is the real `npm run worker` entry (dist/worker/main.js, this run's build) in a child process, on
 * the test app's database and task queue; the API runs in this process and stays up throughout.
 */
import type http from 'node:http';
import { Client } from '@temporalio/client';
import { deliveryWorkflowId, gymWorkflowId } from '../../workflows/contracts';
import { startAgentServer, type AgentBehaviour, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { WorkerProcess, workerEnv } from '../support/worker-process';
import { until } from '../support/wait';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';

/** A worker process is ready in seconds, more on a busy two-core machine. */
const WORKER_READY_MS = 120_000;
const INTERRUPTED = 'delivery interrupted after the request may have reached the agent; it is not sent twice';

/** Short enough that the interrupted push deliveries end within the test, long enough for the kill and restart. */
const PUSH_DEADLINE_SECONDS = 30;
/** Pull results must reach the new worker well within this. */
const PULL_DEADLINE_SECONDS = 120;
/**
 * Workflow ids come from database ids (`gym-<agent id>-1`, `delivery-<session id>`). Every test file
 * has its own database, all share one Temporal namespace: agents and sessions numbered from here
 * keep this file's long-running workflows from colliding with other files' (numbered from 1).
 */
const ID_BASE = 710_000_000;

let t: TestApp;
let client: Client;
let agentServer: TestAgentServer;
let owner: Registered;
let pusher: { id: number };
let puller: { id: number; webhook_secret: string };
const workers: WorkerProcess[] = [];
let worker: WorkerProcess | undefined;

/** Answers every request at once, with the delivery id in the answer. */
const answerAll: AgentBehaviour = (req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ response: `answer to ${req.headers['x-arena-delivery']}` }));
};

beforeAll(async () => {
  await ensureBuilt();
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1' }, { pingTimeoutMs: 5000, pastTheGym: false });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  await t.orm.em
    .getConnection()
    .execute(
      `select setval(pg_get_serial_sequence('agents', 'id'), ?, false), setval(pg_get_serial_sequence('sessions', 'id'), ?, false)`,
      [ID_BASE, ID_BASE],
    );
  agentServer = await startAgentServer(answerAll);
  owner = await register(t.app);
  // No worker runs yet: the agents' gyms start, but nothing runs them until a worker is up.
  pusher = await createAgent({ name: 'durable-pusher', webhook_url: agentServer.url });
  puller = await createAgent({ name: 'durable-puller', mode: 'pull' });
}, BUILD_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.kill()));
  await agentServer?.close();
  await t?.close();
}, 60_000);

async function startWorkerProcess(): Promise<WorkerProcess> {
  const started = new WorkerProcess(workerEnv(t));
  workers.push(started);
  await started.ready;
  worker = started;
  return started;
}

async function createAgent(payload: object) {
  const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: owner.auth, payload });
  if (res.statusCode !== 201) throw new Error(`creating an agent failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

interface Sandbox {
  id: string;
  sessionId: number;
}

async function sandbox(agentId: number, payload: object): Promise<Sandbox> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agentId}/sandbox`,
    headers: owner.auth,
    payload,
  });
  expect(res.statusCode).toBe(202);
  const { id } = res.json();
  return { id, sessionId: Number(id.split('-')[1]) };
}

const secretHeader = () => ({ 'x-arena-secret': puller.webhook_secret });
const next = (wait: number) =>
  t.app.inject({ method: 'GET', url: `/api/agents/${puller.id}/work/next?wait=${wait}`, headers: secretHeader() });
const post = (workId: string, payload: object) =>
  t.app.inject({
    method: 'POST',
    url: `/api/agents/${puller.id}/work/${workId}/result`,
    headers: secretHeader(),
    payload,
  });
const outcome = (s: Sandbox) => client.workflow.getHandle(deliveryWorkflowId(s.sessionId)).result();
const requestsFor = (id: string) => agentServer.received.filter((r) => r.headers['x-arena-delivery'] === id);

/** Leases pull work until every wanted item is handed out; gym items met on the way are answered. */
async function lease(wanted: Sandbox[]): Promise<void> {
  const missing = new Set(wanted.map((s) => s.id));
  while (missing.size > 0) {
    const res = await next(5);
    if (res.statusCode === 204) continue;
    expect(res.statusCode).toBe(200);
    const { work_id: workId, kind } = res.json();
    if (missing.delete(workId)) continue;
    expect(kind).toBe('gym');
    expect((await post(workId, { response: `answer to ${workId}` })).statusCode).toBe(200);
  }
}

/** Lets both gyms finish, so that only the deliveries under test are in flight later. */
async function finishGyms(): Promise<void> {
  const pullGym = client.workflow.getHandle(gymWorkflowId(puller.id, 1));
  while ((await pullGym.describe()).status.name === 'RUNNING') {
    const res = await next(2);
    if (res.statusCode !== 200) continue;
    expect((await post(res.json().work_id, { response: 'gym answer' })).statusCode).toBe(200);
  }
  expect(await pullGym.result()).toBe('complete');
  expect(await client.workflow.getHandle(gymWorkflowId(pusher.id, 1)).result()).toBe('complete');
}

interface DeliveryRow {
  id: number;
  status: string;
  response: string | null;
  error: string | null;
  /** completed_at, in ms since the epoch. */
  completed_ms: number | null;
}

/** The sessions' rows, in the order given. */
async function sessionRows(sandboxes: Sandbox[]): Promise<Array<DeliveryRow | undefined>> {
  const ids = sandboxes.map((s) => s.sessionId);
  const rows = await t.orm.em.getConnection().execute<DeliveryRow[]>(
    `select id, status, response, error, (extract(epoch from completed_at) * 1000)::float8 as completed_ms
       from sessions where id in (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  expect(rows).toHaveLength(ids.length);
  return ids.map((id) => rows.find((r) => r.id === id));
}

/** How often each activity ran in a delivery's workflow history: scheduled ones, and local ones (their markers). */
async function activitiesRun(s: Sandbox): Promise<Record<string, number>> {
  const history = await client.workflow.getHandle(deliveryWorkflowId(s.sessionId)).fetchHistory();
  const counts: Record<string, number> = {};
  const count = (name: string) => (counts[name] = (counts[name] ?? 0) + 1);
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (scheduled) count(scheduled);
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = marker.details?.data?.payloads?.[0]?.data;
      if (data) count(JSON.parse(Buffer.from(data).toString('utf8')).activity_type);
    }
  }
  return counts;
}

describe('deliveries survive the worker', () => {
  it(
    'delivers sandbox tasks started while no worker runs, once a worker starts',
    async () => {
      const push = await sandbox(pusher.id, { prompt: 'sent while no worker runs', deadline_seconds: 60 });
      const pull = await sandbox(puller.id, { prompt: 'queued while no worker runs', deadline_seconds: 60 });
      const expiring = await sandbox(pusher.id, { prompt: 'expires while no worker runs', deadline_seconds: 2 });
      const expiringSince = Date.now();
      // Nothing has run them: the push agent got nothing, and no pull work is queued.
      expect(requestsFor(push.id)).toHaveLength(0);
      expect((await next(0)).statusCode).toBe(204);

      // The short deadline passes before any worker runs (the condition here is time itself).
      await until(async () => Date.now() - expiringSince > 2_000, 'two seconds of expiring', 30_000);
      await startWorkerProcess();
      const workerUp = Date.now();
      // The deadline counts from the start of the delivery, not from when a worker first got to it:
      // it is recorded as soon as a worker runs, not two seconds later.
      expect(await outcome(expiring)).toEqual({ status: 'timeout' });
      const [expired] = await sessionRows([expiring]);
      expect(expired!.completed_ms! - workerUp).toBeLessThan(2_000);
      expect(await outcome(push)).toEqual({ status: 'answered' });
      expect(requestsFor(push.id)).toHaveLength(1);
      await lease([pull]);
      expect((await post(pull.id, { response: `answer to ${pull.id}` })).json()).toEqual({
        work_id: pull.id,
        recorded: true,
        status: 'answered',
        error: null,
      });
      expect(await outcome(pull)).toEqual({ status: 'answered' });

      const rows = await sessionRows([push, pull]);
      expect(rows).toEqual([
        {
          id: push.sessionId,
          status: 'answered',
          response: `answer to ${push.id}`,
          error: null,
          completed_ms: expect.any(Number),
        },
        {
          id: pull.sessionId,
          status: 'answered',
          response: `answer to ${pull.id}`,
          error: null,
          completed_ms: expect.any(Number),
        },
      ]);
    },
    WORKER_READY_MS + 60_000,
  );

  it(
    'ends every delivery in flight exactly once when the worker is killed and another takes over',
    async () => {
      if (!worker) await startWorkerProcess();
      await finishGyms();

      // The push agent holds every sandbox request until released, and notes when its connection goes away.
      const held: Array<{ id: string; res: http.ServerResponse; gone: Promise<void> }> = [];
      agentServer.behave((req, res) => {
        const id = String(req.headers['x-arena-delivery']);
        if (!id.startsWith('sandbox-')) return answerAll(req, res);
        held.push({ id, res, gone: new Promise((resolve) => res.once('close', () => resolve())) });
      });
      const pushes: Sandbox[] = [];
      const pulls: Sandbox[] = [];
      const describePulls = () =>
        Promise.all(pulls.map((p) => client.workflow.getHandle(deliveryWorkflowId(p.sessionId)).describe()));
      for (const n of [1, 2, 3]) {
        pushes.push(await sandbox(pusher.id, { prompt: `push ${n}`, deadline_seconds: PUSH_DEADLINE_SECONDS }));
        pulls.push(await sandbox(puller.id, { prompt: `pull ${n}`, deadline_seconds: PULL_DEADLINE_SECONDS }));
      }
      // In flight: each push request has reached the agent, each pull item is leased to the runner.
      await until(async () => pushes.every((p) => requestsFor(p.id).length === 1), 'every push sent once', 30_000);
      await lease(pulls);
      // The pull workflows are idle, waiting for a result: no workflow task is pending before the crash.
      await until(
        async () => (await describePulls()).every((d) => d.raw.pendingWorkflowTask == null),
        'no pull with a workflow task pending',
        30_000,
      );

      await worker!.kill();
      // The push requests died with the worker: their connections are gone, nobody reads an answer now.
      await Promise.all(held.map((h) => h.gone));
      for (const h of held) {
        h.res.writeHead(200, { 'content-type': 'application/json' });
        h.res.end(JSON.stringify({ response: `late answer to ${h.id}` }));
      }
      // The runner posts its results while no worker runs: the API waits on the update until one does.
      const posts = pulls.map((p) => post(p.id, { response: `answer to ${p.id}` }));
      // Each update has reached Temporal, which now has a workflow task waiting for a worker.
      await until(
        async () => (await describePulls()).every((d) => d.raw.pendingWorkflowTask != null),
        'every pull with a workflow task pending',
        30_000,
      );
      const restartedAt = Date.now();
      await startWorkerProcess();

      const posted = await Promise.all(posts);
      expect(posted.map((r) => ({ status: r.statusCode, body: r.json() }))).toEqual(
        pulls.map((p) => ({ status: 200, body: { work_id: p.id, recorded: true, status: 'answered', error: null } })),
      );
      expect(await Promise.all(pulls.map(outcome))).toEqual(pulls.map(() => ({ status: 'answered' })));
      // A push attempt cut off by the crash stops heartbeating; Temporal retries it on the new worker,
      // which finds the request already claimed as sent and records the interruption instead of sending
      // it again (the answer the agent gave went to a dead connection).
      expect(await Promise.all(pushes.map(outcome))).toEqual(pushes.map(() => ({ status: 'error' })));

      // One row each, final, with its completion time; pull results were recorded by the new worker.
      const rows = await sessionRows([...pushes, ...pulls]);
      expect(rows).toEqual([
        ...pushes.map((p) => ({
          id: p.sessionId,
          status: 'error',
          response: null,
          error: INTERRUPTED,
          completed_ms: expect.any(Number),
        })),
        ...pulls.map((p) => ({
          id: p.sessionId,
          status: 'answered',
          response: `answer to ${p.id}`,
          error: null,
          completed_ms: expect.any(Number),
        })),
      ]);
      for (const row of rows.slice(pushes.length)) expect(row!.completed_ms).toBeGreaterThanOrEqual(restartedAt);
      // Each push prompt reached the agent exactly once, the crash notwithstanding.
      for (const p of pushes) expect(requestsFor(p.id)).toHaveLength(1);
      // A push prompt was sent and its outcome recorded by a single activity (its retry is the same
      // activity); a pull item was queued by one and its outcome recorded by another.
      for (const p of pushes) expect(await activitiesRun(p)).toEqual({ deliverPush: 1 });
      for (const p of pulls) expect(await activitiesRun(p)).toEqual({ queueWork: 1, recordOutcome: 1 });
      const [{ n }] = await t.orm.em
        .getConnection()
        .execute<[{ n: number }]>(
          `select count(*)::int as n from sessions where kind = 'sandbox' and agent_id in (?, ?)`,
          [pusher.id, puller.id],
        );
      expect(n).toBe(3 + pushes.length + pulls.length);
    },
    2 * WORKER_READY_MS + 120_000,
  );
});

/** Awaits a condition on real state rather than sleeping a fixed time. */
