/**
 * Fault: the worker process is SIGKILLed with many deliveries in flight (push requests open at the
 * agents, pull items leased to runners); a new worker takes over. Every delivery must end recorded
 * once: none lost (left pending), no push prompt sent twice, no work item leased twice.
 *
 * The body is shared by two sizes: test/hardening/worker-kill.part.ts (in `npm test`) kills the
 * worker with 20 deliveries in flight, test/slow/worker-kill.test.ts (the slow set) with over 200.
 */
import type http from 'node:http';
import { Client } from '@temporalio/client';
import { startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { WorkerProcess, workerEnv } from '../support/worker-process';
import { eventually } from '../support/wait';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';

const PUSH_AGENTS = 4;
const PULL_AGENTS = 2;
const INTERRUPTED = 'delivery interrupted after the request may have reached the agent; it is not sent twice';

/**
 * How many sandbox prompts each push agent and each pull agent is given, how many push requests
 * must be open at the agents before the kill, and the fewest deliveries that must be in flight then.
 */
export interface WorkerKillSize {
  pushTasksEach: number;
  pullTasksEach: number;
  openBeforeKill: number;
  minInFlight: number;
}

/** The worker-kill test at one size; call it at the top level of a test file. */
export function workerKillSuite(size: WorkerKillSize): void {
  const PUSH_TASKS_EACH = size.pushTasksEach;
  const PULL_TASKS_EACH = size.pullTasksEach;
  let t: TestApp;
  let client: Client;
  let server: TestAgentServer;
  let owner: Registered;
  const workers: WorkerProcess[] = [];
  const leased = new Map<string, number>();
  let runnersStopped = false;
  /** Agents and runners hold their answers to sandbox prompts until the worker has been killed, so those are in flight then. */
  let killed = false;
  const runners: Array<Promise<void>> = [];

  beforeAll(async () => {
    await ensureBuilt();
    t = await startTestApp(
      { ARENA_GYM_RETRY_SECONDS: '1', ARENA_SANDBOX_RATE_LIMIT: '100000', ARENA_WORK_POLL_RATE_LIMIT: '100000' },
      { pingTimeoutMs: 5_000, pastTheGym: false },
    );
    client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
    // Push agents hold their answers to sandbox prompts until the worker has been killed, so every
    // request the first worker sent is still open then.
    server = await startAgentServer((req, res: http.ServerResponse) => {
      const { category } = JSON.parse(req.body);
      const delivery = String(req.headers['x-arena-delivery']);
      const reply = () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ response: `answer to ${delivery}` }));
      if (category === 'sandbox' && !killed)
        void eventually(async () => (killed ? true : undefined), 'the kill', 300_000).then(reply, reply);
      else reply();
    });
    owner = await register(t.app);
  }, BUILD_TIMEOUT_MS + 60_000);
  afterAll(async () => {
    runnersStopped = true;
    await Promise.allSettled(runners);
    await Promise.allSettled(workers.map((w) => w.kill()));
    await server?.close();
    await t?.close();
  }, 120_000);

  function startWorkerProcess(): WorkerProcess {
    const worker = new WorkerProcess(workerEnv(t));
    workers.push(worker);
    return worker;
  }

  /** A pull runner: long-polls, counts every lease, answers (sandbox items only after the kill), until the test ends. */
  function runPuller(agent: { id: number; webhook_secret: string }): Promise<void> {
    const headers = { 'x-arena-secret': agent.webhook_secret };
    return (async () => {
      while (!runnersStopped) {
        const res = await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/work/next?wait=2`, headers });
        if (res.statusCode !== 200) continue;
        const workId: string = res.json().work_id;
        leased.set(workId, (leased.get(workId) ?? 0) + 1);
        if (res.json().kind === 'sandbox')
          await eventually(async () => (killed || runnersStopped ? true : undefined), 'the kill', 300_000);
        await t.app.inject({
          method: 'POST',
          url: `/api/agents/${agent.id}/work/${workId}/result`,
          headers,
          payload: { response: `answer to ${workId}` },
        });
      }
    })();
  }

  it(`loses no delivery and sends none twice when the worker is killed with at least ${size.minInFlight} in flight`, async () => {
    await startWorkerProcess().ready;
    const create = async (payload: object) =>
      (await t.app.inject({ method: 'POST', url: '/api/agents', headers: owner.auth, payload })).json();
    const pushers = [];
    for (let i = 0; i < PUSH_AGENTS; i++)
      pushers.push(await create({ name: `pusher-${i}`, webhook_url: server.url.replace('/hook', `/push-${i}`) }));
    const pullers = [];
    for (let i = 0; i < PULL_AGENTS; i++) pullers.push(await create({ name: `puller-${i}`, mode: 'pull' }));
    for (const puller of pullers) runners.push(runPuller(puller));
    await Promise.all([...pushers, ...pullers].map((a) => client.workflow.getHandle(`gym-${a.id}-1`).result()));

    const sessions: Array<{ id: string; n: number; mode: 'push' | 'pull' }> = [];
    const sandbox = async (agent: { id: number }, mode: 'push' | 'pull', i: number) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/agents/${agent.id}/sandbox`,
        headers: owner.auth,
        payload: { prompt: `task ${i}`, deadline_seconds: 120 },
      });
      expect(res.statusCode).toBe(202);
      const id: string = res.json().id;
      sessions.push({ id, n: Number(id.split('-')[1]), mode });
    };
    for (let i = 0; i < PUSH_TASKS_EACH; i++) await Promise.all(pushers.map((pusher) => sandbox(pusher, 'push', i)));
    for (let i = 0; i < PULL_TASKS_EACH; i++) await Promise.all(pullers.map((puller) => sandbox(puller, 'pull', i)));
    const sandboxRequests = () => server.received.filter((r) => JSON.parse(r.body).category === 'sandbox');
    await eventually(
      async () => (sandboxRequests().length >= size.openBeforeKill ? true : undefined),
      'pushes to be open at the agents',
    );

    const pending = async () =>
      (
        await t.orm.em
          .fork()
          .getConnection()
          .execute<Array<{ n: number }>>(
            `select count(*)::int as n from sessions where kind = 'sandbox' and status = 'pending'`,
          )
      )[0]!.n;
    const inFlight = await pending();
    const openAtKill = sandboxRequests().length;
    await workers[0]!.kill();
    killed = true;
    expect(inFlight).toBeGreaterThanOrEqual(size.minInFlight);

    await startWorkerProcess().ready;
    const outcomes = await Promise.all(
      sessions.map((s) => client.workflow.getHandle(`delivery-${s.n}`).result() as Promise<{ status: string }>),
    );
    runnersStopped = true;

    const rows = await t.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ id: number; status: string; error: string | null; response: string | null }>>(
        `select id, status, error, response from sessions where kind = 'sandbox'`,
      );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(rows).toHaveLength(sessions.length);
    const lost = rows.filter((r) => r.status === 'pending').length;
    const sentTwice = sessions.filter(
      (s) => s.mode === 'push' && sandboxRequests().filter((r) => r.headers['x-arena-delivery'] === s.id).length > 1,
    ).length;
    const leasedTwice = [...leased.values()].filter((n) => n > 1).length;
    const interrupted = rows.filter((r) => r.error === INTERRUPTED).length;
    console.log(
      `worker kill: ${sessions.length} deliveries, ${inFlight} in flight and ${openAtKill} push requests open at the kill; ` +
        `after a new worker: ${lost} lost, ${sentTwice} sent twice, ${leasedTwice} leased twice, ${interrupted} recorded as interrupted, ` +
        `${rows.filter((r) => r.status === 'answered').length} answered`,
    );
    expect({ lost, sentTwice, leasedTwice }).toEqual({ lost: 0, sentTwice: 0, leasedTwice: 0 });
    for (const [i, s] of sessions.entries()) {
      const row = byId.get(s.n)!;
      expect(outcomes[i]).toEqual({ status: row.status });
      if (s.mode === 'pull') expect(row).toMatchObject({ status: 'answered', response: `answer to ${s.id}` });
      // A push answered is the agent's real answer; anything else is the recorded interruption, never silence.
      else if (row.status === 'answered') expect(row.response).toBe(`answer to ${s.id}`);
      else expect(row.error).toBe(INTERRUPTED);
    }
  }, 600_000);
}
