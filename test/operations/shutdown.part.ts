import { Client } from '@temporalio/client';
import { startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { WorkerProcess, workerEnv } from '../support/worker-process';
import { eventually } from '../support/wait';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';

let t: TestApp;
let agents: TestAgentServer;
let owner: Registered;
/** Requests whose path is in here are answered only when the test says so. */
const held = new Map<string, () => void>();

beforeAll(async () => {
  await ensureBuilt();
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1' }, { pingTimeoutMs: 10_000, pastTheGym: false });
  agents = await startAgentServer((req, res) => {
    const body = JSON.parse(req.body);
    const reply = () =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ response: `answer to ${body.prompt}` }));
    const key = `${req.url} ${body.category}`;
    if (held.has(key)) held.set(key, reply);
    else reply();
  });
  owner = await register(t.app);
}, BUILD_TIMEOUT_MS + 60_000);
afterAll(async () => {
  await agents.close();
  await t.close();
});

it('API: on close, open long-polls answer 204 at once, in-flight requests finish, and nothing new is accepted', async () => {
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  // No worker runs here, so the pull agent's gym never queues work: its long-poll just waits.
  const puller = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'waiting', mode: 'pull' },
    })
  ).json();
  const pollStarted = Date.now();
  const poll = fetch(`${base}/api/agents/${puller.id}/work/next?wait=45`, {
    headers: { 'x-arena-secret': puller.webhook_secret },
  });
  // A request still working when the close begins: creating a push agent whose ping is held.
  held.set('/slow ping', () => undefined);
  const creating = fetch(`${base}/api/agents`, {
    method: 'POST',
    headers: { ...owner.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'slow', webhook_url: agents.url.replace('/hook', '/slow') }),
  });
  await eventually(
    async () => (agents.received.some((r) => r.url === '/slow') ? true : undefined),
    'the ping to arrive',
  );
  await eventually(
    async () => ((await t.app.openLongPolls.get()).values[0]?.value === 1 ? true : undefined),
    'the long-poll to wait',
  );

  const closing = t.app.close();
  const polled = await poll;
  expect(polled.status).toBe(204);
  expect(Date.now() - pollStarted).toBeLessThan(10_000);
  // The close waits for the request in flight, which then completes normally.
  held.get('/slow ping')!();
  held.delete('/slow ping');
  const created = await creating;
  expect(created.status).toBe(201);
  expect(((await created.json()) as { active: boolean }).active).toBe(true);
  await closing;
  await expect(fetch(`${base}/health`)).rejects.toThrow();
}, 60_000);

describe('worker process', () => {
  let worker: WorkerProcess | undefined;
  afterAll(() => worker?.kill());

  it('drains on SIGTERM: a webhook call in flight is answered and recorded, never cut or sent twice; logs are JSON with workflow ids', async () => {
    const app = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1' }, { pastTheGym: false });
    try {
      const client = new Client({ connection: app.temporal, namespace: app.config.temporalNamespace });
      worker = new WorkerProcess(workerEnv(app, { LOG_LEVEL: 'info' }));
      await worker.ready;
      const me = await register(app.app);
      const agent = (
        await app.app.inject({
          method: 'POST',
          url: '/api/agents',
          headers: me.auth,
          payload: { name: 'drained', webhook_url: agents.url.replace('/hook', '/drained') },
        })
      ).json();
      expect(await client.workflow.getHandle(`gym-${agent.id}-1`).result()).toBe('complete');

      held.set('/drained sandbox', () => undefined);
      const task = (
        await app.app.inject({
          method: 'POST',
          url: `/api/agents/${agent.id}/sandbox`,
          headers: me.auth,
          payload: { prompt: 'slow one', deadline_seconds: 60 },
        })
      ).json();
      await eventually(
        async () => (held.get('/drained sandbox')!.name === 'reply' ? true : undefined),
        'the sandbox prompt to reach the agent',
      );
      worker.signal('SIGTERM');
      await eventually(
        async () => (worker!.output.includes('worker: SIGTERM, draining') ? true : undefined),
        'the worker to start draining',
      );
      held.get('/drained sandbox')!();
      held.delete('/drained sandbox');
      await worker.closed;
      expect(worker.output).not.toMatch(/Error|unhandled/i);

      // Another worker records the outcome the drained one reported.
      await app.startWorker();
      const sessionId = Number(task.id.split('-')[1]);
      expect(await client.workflow.getHandle(`delivery-${sessionId}`).result()).toEqual({ status: 'answered' });
      const feed = (await app.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity` })).json();
      expect(feed.sessions.find((s: { id: string }) => s.id === task.id)).toMatchObject({
        status: 'answered',
        response: 'answer to slow one',
      });
      expect(
        agents.received.filter((r) => r.url === '/drained' && JSON.parse(r.body).prompt === 'slow one'),
      ).toHaveLength(1);

      const recorded = worker.output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg === 'delivery recorded');
      expect(recorded.length).toBeGreaterThanOrEqual(6);
      expect(recorded[0]).toMatchObject({
        workflowId: expect.stringMatching(/^delivery-\d+$/),
        // A push delivery is sent and recorded by one activity.
        activityType: 'deliverPush',
        status: 'answered',
        kind: 'gym',
      });
    } finally {
      await app.close();
    }
  }, 240_000);
});
