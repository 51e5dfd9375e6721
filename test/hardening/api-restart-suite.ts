/**
 * Fault: an API process restarts while runners long-poll it. The runners reconnect on their own;
 * every work item queued before, during and after the restart reaches exactly one runner. `npm test`
 * runs it with 20 runners (test/hardening/api-restart.part.ts), the slow set with 100
 * (test/slow/api-restart.test.ts).
 */
import { Client } from '@temporalio/client';
import { freePort } from '../../infra/ports';
import { ApiProcess, apiEnv } from '../support/api-process';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { eventually } from '../support/wait';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';

export interface ApiRestartSize {
  agents: number;
  runnersPerAgent: number;
  tasksPerPhase: number;
}

export function apiRestartSuite({
  agents: AGENTS,
  runnersPerAgent: RUNNERS_PER_AGENT,
  tasksPerPhase: TASKS_PER_PHASE,
}: ApiRestartSize): void {
  const LIMITS = { ARENA_WORK_POLL_RATE_LIMIT: '100000', ARENA_SANDBOX_RATE_LIMIT: '100000' };

  let t: TestApp;
  let client: Client;
  let owner: Registered;
  let port: number;
  let api: ApiProcess | undefined;
  let stopped = false;
  const received = new Map<string, number>();
  const figures = { reconnects: 0, emptyPolls: 0 };

  beforeAll(async () => {
    await ensureBuilt();
    t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1', ...LIMITS });
    client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
    await t.startWorker();
    owner = await register(t.app);
    port = await freePort();
  }, BUILD_TIMEOUT_MS + 60_000);
  afterAll(async () => {
    stopped = true;
    await api?.stop();
    await t?.close();
  }, 60_000);

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** A runner as a user would write one: long-poll, answer, and on any network failure wait a little and poll again. */
  async function runner(base: string, agent: { id: number; webhook_secret: string }): Promise<void> {
    const headers = { 'x-arena-secret': agent.webhook_secret, 'content-type': 'application/json' };
    while (!stopped) {
      let res: Response;
      try {
        res = await fetch(`${base}/api/agents/${agent.id}/work/next?wait=20`, { headers });
      } catch {
        figures.reconnects++;
        await sleep(100);
        continue;
      }
      if (res.status !== 200) {
        figures.emptyPolls++;
        await res.arrayBuffer();
        if (res.status !== 204) await sleep(100);
        continue;
      }
      const { work_id: workId } = (await res.json()) as { work_id: string };
      received.set(workId, (received.get(workId) ?? 0) + 1);
      // The result goes through even if the API restarts in between.
      for (;;) {
        try {
          const posted = await fetch(`${base}/api/agents/${agent.id}/work/${workId}/result`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ response: `answer to ${workId}` }),
          });
          await posted.arrayBuffer();
          if (posted.status === 200) break;
        } catch {
          figures.reconnects++;
        }
        await sleep(100);
      }
    }
  }

  it(`loses and duplicates no work item when the API restarts under ${AGENTS * RUNNERS_PER_AGENT} long-polling runners`, async () => {
    api = new ApiProcess(apiEnv(t, port, LIMITS));
    const base = await api.ready;
    const agents: Array<{ id: number; webhook_secret: string }> = [];
    for (let i = 0; i < AGENTS; i++)
      agents.push(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/agents',
            headers: owner.auth,
            payload: { name: `runner-${i}`, mode: 'pull' },
          })
        ).json(),
      );
    const runners = agents.flatMap((agent) => Array.from({ length: RUNNERS_PER_AGENT }, () => runner(base, agent)));

    const tasks: string[] = [];
    const queue = async (phase: string) => {
      for (let i = 0; i < TASKS_PER_PHASE; i++) {
        const agent = agents[i % AGENTS]!;
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/agents/${agent.id}/sandbox`,
          headers: owner.auth,
          payload: { prompt: `${phase} ${i}`, deadline_seconds: 120 },
        });
        expect(res.statusCode).toBe(202);
        tasks.push(res.json().id);
      }
    };
    await queue('before');
    const stoppedCode = await api.stop();
    expect(stoppedCode).toBe(0);
    // Queued while no API process runs: the next one hands them out.
    await queue('during');
    api = new ApiProcess(apiEnv(t, port, LIMITS));
    await api.ready;
    await queue('after');

    const outcomes = await Promise.all(
      tasks.map((id) => client.workflow.getHandle(`delivery-${id.split('-')[1]}`).result()),
    );
    await eventually(
      async () => (tasks.every((id) => received.has(id)) ? true : undefined),
      'every task to reach a runner',
    );
    stopped = true;
    await api.stop();
    api = undefined;
    await Promise.all(runners);

    const lost = outcomes.filter((o) => (o as { status: string }).status !== 'answered').length;
    const twice = [...received.values()].filter((n) => n > 1).length;
    console.log(
      `API restart: ${AGENTS * RUNNERS_PER_AGENT} runners, ${tasks.length} work items (${TASKS_PER_PHASE} queued while no API ran), ` +
        `${figures.reconnects} reconnect attempts; ${lost} lost, ${twice} delivered twice`,
    );
    expect({ lost, twice }).toEqual({ lost: 0, twice: 0 });
    expect(figures.reconnects).toBeGreaterThan(0);
    const feed = await Promise.all(
      agents.map(async (a) =>
        (await t.app.inject({ method: 'GET', url: `/api/agents/${a.id}/activity?limit=100` })).json(),
      ),
    );
    const answered = feed
      .flatMap((f) => f.sessions)
      .filter((s: { kind: string; status: string }) => s.kind === 'sandbox' && s.status === 'answered');
    expect(answered).toHaveLength(tasks.length);
  }, 600_000);
}
