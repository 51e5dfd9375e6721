/**
 * Records the workflow histories that test/unit/replay/replay.test.ts replays, into test/histories/*.json.
 *
 * Not part of the normal test run (jest only collects `*.test.ts`). Run it on purpose, through jest
 * so its global setup provides PostgreSQL, the Temporal dev server and the workflow bundle:
 *
 *   RECORD_HISTORIES=1 npx jest --selectProjects integration --testMatch '<rootDir>/test/histories/record-histories.ts'
 *
 * It overwrites the files of the same name. Each is one workflow execution's history in Temporal's
 * proto JSON (as `temporal workflow show --output json` prints it), with the worker and client
 * identities and the host name (which name the recording machine) replaced. When a workflow change
 * makes a saved history fail to replay, do not just record it again: executions still running on
 * the old code would fail the same way in production. Make the change with `patched()`, rename the
 * old file (say push-answered.v1.json) so that it is still replayed, then record the new one. The
 * old file goes when its patch is retired (docs/decisions.md, "Workflow versions").
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { benchmarkWorkflowId, deliveryWorkflowId, gymWorkflowId, voteWorkflowId } from '../../workflows/contracts';
import { applyRetention, dispatchArena, refreshLeaderboard } from '../../workflows';
import { answer, hang, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { startA2aAgent } from '../support/a2a-agents';
import { historyToJson } from '../../infra/temporal/history-json';
import { codingWork, fixCenturyRule, stepOf, type SandboxObject } from '../sandbox/coding-support';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { until } from '../support/wait';

const HISTORIES_DIR = __dirname;
const IDENTITY = 'arena-history-recorder';

const recording = process.env.RECORD_HISTORIES === '1' ? describe : describe.skip;

recording('recording workflow histories', () => {
  let t: TestApp;
  let client: Client;
  let agentServer: TestAgentServer;
  let owner: Registered;
  let pusher: { id: number };
  let puller: { id: number; webhook_secret: string };

  beforeAll(async () => {
    t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1', ARENA_DISPATCH_BATCH: '2' }, { pingTimeoutMs: 5000 });
    client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
    agentServer = await startAgentServer(answer(200, { response: 'recorded answer' }));
    owner = await register(t.app);
    await t.startWorker();
  }, 60_000);
  afterAll(async () => {
    await agentServer?.close();
    await t?.close();
  });

  const createAgent = async (payload: object) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: owner.auth, payload });
    if (res.statusCode !== 201) throw new Error(`creating an agent failed: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const sandbox = async (agentId: number, payload: object): Promise<{ id: string; sessionId: number }> => {
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/sandbox`, headers: owner.auth, payload });
    if (res.statusCode !== 202) throw new Error(`sandbox failed: ${res.statusCode} ${res.body}`);
    const { id } = res.json();
    return { id, sessionId: Number(id.split('-')[1]) };
  };
  const cancel = (agentId: number, id: string) =>
    t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/sandbox/${id}/cancel`, headers: owner.auth });
  const next = (wait: number) =>
    t.app.inject({ method: 'GET', url: `/api/agents/${puller.id}/work/next?wait=${wait}`, headers: { 'x-arena-secret': puller.webhook_secret } });
  const post = (workId: string, payload: object) =>
    t.app.inject({ method: 'POST', url: `/api/agents/${puller.id}/work/${workId}/result`, headers: { 'x-arena-secret': puller.webhook_secret }, payload });

  /** Awaits the workflow's end and saves its history under `<name>.json`. */
  async function save(name: string, workflowId: string, expected: unknown): Promise<void> {
    const handle = client.workflow.getHandle(workflowId);
    expect(await handle.result()).toEqual(expected);
    const history = historyToJson(await handle.fetchHistory());
    const file = path.join(HISTORIES_DIR, `${name}.json`);
    await fs.writeFile(file, JSON.stringify(scrubIdentities(history), null, 2) + '\n');
  }

  it('a push agent: its gym, an answer, a missed deadline, a cancel', async () => {
    pusher = await createAgent({ name: 'recorded-pusher', webhook_url: agentServer.url });
    await save('gym-push-complete', gymWorkflowId(pusher.id, 1), 'complete');

    const answered = await sandbox(pusher.id, { prompt: 'What is 6 x 7?', category: 'math', deadline_seconds: 30 });
    await save('push-answered', deliveryWorkflowId(answered.sessionId), { status: 'answered' });

    agentServer.behave(hang);
    const late = await sandbox(pusher.id, { prompt: 'too slow', deadline_seconds: 1 });
    await save('push-deadline', deliveryWorkflowId(late.sessionId), { status: 'timeout' });

    const cancelled = await sandbox(pusher.id, { prompt: 'never mind', deadline_seconds: 60 });
    await until(async () => agentServer.received.some((r) => r.headers['x-arena-delivery'] === cancelled.id));
    expect((await cancel(pusher.id, cancelled.id)).statusCode).toBe(200);
    await save('push-cancelled', deliveryWorkflowId(cancelled.sessionId), { status: 'cancelled' });
  }, 120_000);

  it('a pull agent: its gym with a second cycle, an answer, an expiry, a cancel', async () => {
    puller = await createAgent({ name: 'recorded-puller', mode: 'pull' });
    // The first gym prompt fails once, so the gym sends it again on a later cycle.
    let failed = false;
    const gym = client.workflow.getHandle(gymWorkflowId(puller.id, 1));
    while ((await gym.describe()).status.name === 'RUNNING') {
      const res = await next(2);
      if (res.statusCode !== 200) continue;
      const result = await post(res.json().work_id, failed ? { response: 'fine' } : { error: 'not ready yet' });
      expect(result.statusCode).toBe(200);
      failed = true;
    }
    await save('gym-pull-retried', gymWorkflowId(puller.id, 1), 'complete');

    const answered = await sandbox(puller.id, { prompt: 'What is 6 x 7?', category: 'math', deadline_seconds: 30 });
    expect((await next(10)).json().work_id).toBe(answered.id);
    expect((await post(answered.id, { response: '42', latency_ms: 5 })).statusCode).toBe(200);
    await save('pull-answered', deliveryWorkflowId(answered.sessionId), { status: 'answered' });

    const expired = await sandbox(puller.id, { prompt: 'too slow', deadline_seconds: 1 });
    expect((await next(10)).json().work_id).toBe(expired.id);
    await save('pull-expired', deliveryWorkflowId(expired.sessionId), { status: 'timeout' });

    const cancelled = await sandbox(puller.id, { prompt: 'never mind', deadline_seconds: 60 });
    expect((await cancel(puller.id, cancelled.id)).statusCode).toBe(200);
    await save('pull-cancelled', deliveryWorkflowId(cancelled.sessionId), { status: 'cancelled' });
  }, 120_000);

  it('an A2A agent: a task followed to its answer, and one cancelled at the deadline', async () => {
    const peer = await startA2aAgent({ behaviour: { reply: 'task', afterMs: 300 } });
    const never = await startA2aAgent({ behaviour: { reply: 'never' } });
    try {
      const agent = await createAgent({ name: 'recorded-a2a', mode: 'a2a', agent_card_url: peer.cardUrl });
      await client.workflow.getHandle(gymWorkflowId(agent.id, 1)).result();
      const answered = await sandbox(agent.id, { prompt: 'What is 6 x 7?', category: 'math', deadline_seconds: 30 });
      await save('a2a-answered', deliveryWorkflowId(answered.sessionId), { status: 'answered' });

      await t.orm.em
        .getConnection()
        .execute(`update agents set a2a_card = jsonb_set(a2a_card, '{supportedInterfaces,0,url}', to_jsonb(?::text)) where id = ?`, [
          `${never.baseUrl}/a2a/jsonrpc`,
          agent.id,
        ]);
      const late = await sandbox(agent.id, { prompt: 'too slow', deadline_seconds: 1 });
      await save('a2a-deadline', deliveryWorkflowId(late.sessionId), { status: 'timeout' });
    } finally {
      await Promise.all([peer.close(), never.close()]);
    }
  }, 120_000);

  it('a dispatch step: three due agents served in batches of two', async () => {
    const agents = [];
    for (let i = 0; i < 3; i++) agents.push(await createAgent({ name: `recorded-dispatch-${i}`, webhook_url: agentServer.url }));
    await Promise.all(agents.map((a) => client.workflow.getHandle(gymWorkflowId(a.id, 1)).result()));
    // Only these agents are due: the others' last main prompt is now.
    await t.orm.em
      .getConnection()
      .execute(`update agents set deactivated = true where id <> all(?::int[])`, [`{${agents.map((a) => a.id).join(',')}}`]);
    await client.workflow.start(dispatchArena, { taskQueue: t.config.taskQueue, workflowId: 'recorded-dispatch' });
    await save('dispatch-arena', 'recorded-dispatch', 3);
  }, 120_000);

  it('a vote: two agents of different owners answer one pool prompt, a judge votes on the pair', async () => {
    agentServer.behave(answer(200, { response: 'recorded answer' }));
    const owners = [await register(t.app), await register(t.app)];
    const voters: number[] = [];
    for (const [i, o] of owners.entries()) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: o.auth,
        payload: { name: `recorded-voter-${i}`, webhook_url: agentServer.url },
      });
      expect(res.statusCode).toBe(201);
      voters.push(res.json().id);
    }
    await Promise.all(voters.map((id) => client.workflow.getHandle(gymWorkflowId(id, 1)).result()));
    // Only these two are due, and one pool prompt is left, so both answer it and their answers make a pair.
    const sql = <T>(query: string, params: unknown[]) => t.orm.em.getConnection().execute<T[]>(query, params);
    const mine = `{${voters.join(',')}}`;
    const paused = await sql<{ id: number }>(
      `update agents set deactivated = true where not deactivated and id <> all(?::int[]) returning id`,
      [mine],
    );
    const retired = await sql<{ id: number }>(
      `update prompts set retired_at = now() where source = 'pool' and retired_at is null
         and id <> (select min(id) from prompts where source = 'pool' and retired_at is null) returning id`,
      [],
    );
    await client.workflow.execute(dispatchArena, { taskQueue: t.config.taskQueue, workflowId: 'recorded-vote-dispatch' });
    const sessions = await sql<{ id: number }>(`select id from sessions where kind = 'main' and agent_id = any(?::int[])`, [
      mine,
    ]);
    expect(sessions).toHaveLength(2);
    await Promise.all(sessions.map((s) => client.workflow.getHandle(deliveryWorkflowId(s.id)).result()));
    await sql(`update agents set deactivated = false where id = any(?::int[])`, [`{${paused.map((a) => a.id).join(',')}}`]);
    await sql(`update prompts set retired_at = null where id = any(?::int[])`, [`{${retired.map((p) => p.id).join(',')}}`]);

    const judge = await register(t.app);
    const battle = (await t.app.inject({ method: 'GET', url: '/api/judge/next', headers: judge.auth })).json();
    const vote = await t.app.inject({
      method: 'POST',
      url: `/api/judge/${battle.battle_id}/vote`,
      headers: judge.auth,
      payload: { winner: 'a' },
    });
    expect(vote.statusCode).toBe(200);
    const side = (s: { agent_id: number; elo_before: number; elo_after: number }) => ({
      agentId: s.agent_id,
      before: s.elo_before,
      after: s.elo_after,
    });
    const { a, b } = vote.json();
    expect([a.agent_id, b.agent_id].sort((x, y) => x - y)).toEqual([...voters].sort((x, y) => x - y));
    await save('record-vote', voteWorkflowId(battle.battle_id), {
      battleId: battle.battle_id,
      winner: 'a',
      a: side(a),
      b: side(b),
    });
  }, 120_000);

  it('a coding session in pull mode: the workspace, a read, a write, a command, submit', async () => {
    const coder = await createAgent({ name: 'recorded-coder', mode: 'pull' });
    const started = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${coder.id}/sandbox`,
      headers: owner.auth,
      payload: { task: 'python/leap-year' },
    });
    const work = await codingWork(t, coder, started.json().id);
    const step = stepOf(t, work.sandbox);
    await fixCenturyRule(step);
    await step('POST', 'exec', { command: ['python3', '-c', 'from calendar_utils import is_leap; print(is_leap(1900))'] });
    expect((await step('POST', 'submit')).json().status).toBe('passed');
    await save('coding-session-pull', deliveryWorkflowId(Number(work.work_id.split('-')[1])), { status: 'passed' });
  }, 120_000);

  it('a coding session of an A2A agent: the sandbox in the message, the task completed after submit', async () => {
    const coder = await startA2aAgent({
      behaviour: { reply: 'task', afterMs: 0 },
      answer: async (_prompt, metadata) => {
        const sandbox = metadata.sandbox as SandboxObject | undefined;
        if (!sandbox) return 'a gym answer';
        const step = stepOf(t, sandbox);
        await fixCenturyRule(step);
        return `fixed (${(await step('POST', 'submit')).json().status})`;
      },
    });
    try {
      const agent = await createAgent({ name: 'recorded-a2a-coder', mode: 'a2a', agent_card_url: coder.cardUrl });
      await client.workflow.getHandle(gymWorkflowId(agent.id, 1)).result();
      const started = await t.app.inject({
        method: 'POST',
        url: `/api/agents/${agent.id}/sandbox`,
        headers: owner.auth,
        payload: { task: 'python/leap-year' },
      });
      await save('coding-session-a2a', deliveryWorkflowId(Number(started.json().id.split('-')[1])), { status: 'passed' });
    } finally {
      await coder.close();
    }
  }, 120_000);

  it('a benchmark run of one task, twice, and the hourly retention', async () => {
    const runner = await createAgent({ name: 'recorded-benchmark', mode: 'pull' });
    await t.orm.em.getConnection().execute(`update coding_tasks set active = id = 'python/leap-year'`);
    const started = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${runner.id}/benchmark`,
      headers: owner.auth,
      payload: { trials: 2 },
    });
    const runId = started.json().run_id as number;
    for (let i = 0; i < 2; i++) {
      let pending: number | undefined;
      await until(async () => {
        const [row] = await t.orm.em
          .fork()
          .getConnection()
          .execute(
            `select s.id from coding_sessions c join sessions s on s.id = c.session_id
             where c.benchmark_run_id = ? and s.status = 'pending' order by s.id`,
            [runId],
          );
        pending = row?.id;
        return pending !== undefined;
      });
      const work = await codingWork(t, runner, `sandbox-${pending}`);
      expect((await stepOf(t, work.sandbox)('POST', 'submit')).json().status).toBe('failed');
    }
    await save('run-benchmark', benchmarkWorkflowId(runId), { opened: 2, skipped: 0 });
    await t.orm.em.getConnection().execute(`update coding_tasks set active = true`);

    await client.workflow.start(applyRetention, {
      taskQueue: t.config.taskQueue,
      workflowId: 'recorded-retention',
      args: [{ codingStepDays: 30, workItemDays: 7 }],
    });
    await save(
      'apply-retention',
      'recorded-retention',
      '0 coding steps cut to their transcript; 0 settled work items deleted',
    );
  }, 120_000);

  it('a leaderboard refresh', async () => {
    await client.workflow.start(refreshLeaderboard, { taskQueue: t.config.taskQueue, workflowId: 'recorded-refresh' });
    await save('refresh-leaderboard', 'recorded-refresh', '0 agents from 0 votes; 0 judges flagged');
  });
});

/**
 * Replaces what names the recording machine: every `identity` (pid@host of a worker or client) by a
 * fixed string, and the host name inside sticky task queue names. Replay reads neither.
 */
function scrubIdentities(value: unknown): unknown {
  if (typeof value === 'string') return value.split(os.hostname()).join('recorder-host');
  if (Array.isArray(value)) return value.map(scrubIdentities);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => [key, key === 'identity' && typeof v === 'string' ? IDENTITY : scrubIdentities(v)]),
    );
  }
  return value;
}

