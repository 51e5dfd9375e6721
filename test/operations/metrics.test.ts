import { startTestApp, register, type TestApp } from '../support/test-app';
import { startAgentServer, answer, type TestAgentServer } from '../support/agent-server';
import { WorkerProcess, workerEnv } from '../support/worker-process';
import { startOpsArena, type OpsArena } from './support';
import { eventually } from '../support/wait';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';

/** The value of one sample in Prometheus text (labels in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics on the API', () => {
  let arena: OpsArena;
  let scrape: () => Promise<string>;

  beforeAll(async () => {
    arena = await startOpsArena();
    scrape = async () => {
      const res = await arena.t.app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.body;
    };
  }, 60_000);
  afterAll(() => arena.close());

  it('counts deliveries by kind, mode and outcome, and the latency of answered ones', async () => {
    const good = await arena.createAgent({ name: 'good', webhook_url: arena.server.url.replace('/hook', '/good') });
    const flaky = await arena.createAgent({ name: 'flaky', webhook_url: arena.server.url.replace('/hook', '/flaky') });
    await Promise.all([good, flaky].map((a) => arena.client.workflow.getHandle(`gym-${a.id}-1`).result()));
    const before = await scrape();
    const count = (text: string, outcome: string) =>
      sample(text, 'arena_deliveries_total', { kind: 'sandbox', mode: 'push', outcome }) ?? 0;
    arena.failing.flaky = true;
    const tasks = [await arena.sandbox(good.id), await arena.sandbox(good.id), await arena.sandbox(flaky.id)];
    await Promise.all(tasks.map((task) => arena.settle(task.sessionId)));
    const after = await scrape();
    expect(count(after, 'answered') - count(before, 'answered')).toBe(2);
    expect(count(after, 'error') - count(before, 'error')).toBe(1);
    // Twelve gym prompts were answered before.
    expect(sample(after, 'arena_deliveries_total', { kind: 'gym', mode: 'push', outcome: 'answered' })).toBe(12);
    expect(sample(after, 'arena_delivery_latency_seconds_count', { kind: 'sandbox', mode: 'push' })).toBe(2);
    expect(sample(after, 'arena_delivery_latency_seconds_bucket', { kind: 'sandbox', mode: 'push', le: '+Inf' })).toBe(
      2,
    );
  });

  it('times requests by route pattern, never by raw URL', async () => {
    const text = await scrape();
    expect(
      sample(text, 'arena_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/agents/:id/sandbox',
        status_code: '202',
      }),
    ).toBe(3);
    expect(
      sample(text, 'arena_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/register',
        status_code: '201',
      }),
    ).toBe(1);
    expect(text).not.toMatch(/route="\/api\/agents\/\d+/);
    await arena.t.app.inject({ method: 'GET', url: '/no/such/page?x=1' });
    expect(
      sample(await scrape(), 'arena_http_request_duration_seconds_count', {
        method: 'GET',
        route: 'unmatched',
        status_code: '404',
      }),
    ).toBe(1);
  });

  it('shows open long-polls and queued work items as they are', async () => {
    const puller = await arena.createAgent({ name: 'puller', mode: 'pull' });
    const secret = { 'x-arena-secret': puller.webhook_secret };
    await eventually(
      async () => ((sample(await scrape(), 'arena_work_items_queued') ?? 0) >= 1 ? true : undefined),
      'the gym’s work to be queued',
    );
    // Take everything that is queued, then wait for more: the long-poll stays open.
    for (;;) {
      const res = await arena.t.app.inject({
        method: 'GET',
        url: `/api/agents/${puller.id}/work/next?wait=0`,
        headers: secret,
      });
      if (res.statusCode === 204) break;
    }
    const waiting = arena.t.app.inject({
      method: 'GET',
      url: `/api/agents/${puller.id}/work/next?wait=3`,
      headers: secret,
    });
    await eventually(
      async () => (sample(await scrape(), 'arena_long_polls_open') === 1 ? true : undefined),
      'the long-poll to be counted',
    );
    expect((await waiting).statusCode).toBe(204);
    expect(sample(await scrape(), 'arena_long_polls_open')).toBe(0);
  });

  it('includes the process’s own metrics', async () => {
    const text = await scrape();
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });
});

describe('metrics with ARENA_METRICS_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ARENA_METRICS_TOKEN: 'a-long-scrape-token-for-tests' });
  });
  afterAll(() => t.close());

  it('want the token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong' } })).statusCode,
    ).toBe(401);
    const ok = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer a-long-scrape-token-for-tests' },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('arena_long_polls_open');
  });
});

describe('a worker process', () => {
  let t: TestApp;
  let agents: TestAgentServer;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    await ensureBuilt();
    t = await startTestApp({}, { pastTheGym: false });
    agents = await startAgentServer(answer(200, { response: 'gym answer' }));
  }, BUILD_TIMEOUT_MS + 60_000);
  afterAll(async () => {
    await worker?.kill();
    await agents.close();
    await t.close();
  });

  it('serves its own /metrics (behind the token when one is set): the deliveries it recorded and the Temporal SDK’s metrics', async () => {
    worker = new WorkerProcess(workerEnv(t, { ARENA_METRICS_TOKEN: 'a-worker-scrape-token' }));
    const url = await worker.ready;
    expect((await fetch(url)).status).toBe(401);
    const scrape = { headers: { authorization: 'Bearer a-worker-scrape-token' } };
    const owner = await register(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'counted', webhook_url: agents.url },
    });
    const client = new (await import('@temporalio/client')).Client({
      connection: t.temporal,
      namespace: t.config.temporalNamespace,
    });
    expect(await client.workflow.getHandle(`gym-${created.json().id}-1`).result()).toBe('complete');
    const text = await (await fetch(url, scrape)).text();
    expect(sample(text, 'arena_deliveries_total', { kind: 'gym', mode: 'push', outcome: 'answered' })).toBe(6);
    expect(text).toMatch(/^temporal_\w+/m);
    expect(sample(text, 'temporal_workflow_completed', { workflow_type: 'deliverPrompt' })).toBeGreaterThanOrEqual(6);
    expect((await fetch(url.replace('/metrics', '/other'), scrape)).status).toBe(404);
  }, 180_000);
});
