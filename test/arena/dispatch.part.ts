import type { ActivityDeps } from '../../activities/deps';
import { answer } from '../support/agent-server';
import { register } from '../support/test-app';
import { arenaActivities } from '../../activities/arena';
import { startArena, type Arena } from './support';
import { metricNow, metricSample } from '../support/metrics';
import { deliverPrompt, dispatchArena } from '../../workflows';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { until } from '../support/wait';

let arena: Arena;
// Starting agents and their gyms on a busy two-core machine can take a while.
beforeAll(async () => {
  // A long gap, so a test makes an agent due by moving its last main prompt back in time. Batches of
  // two and a new run after two deliveries, so three agents take two batches and two runs.
  arena = await startArena(3, {
    ARENA_MIN_GAP_SECONDS: '3600',
    ARENA_DISPATCH_BATCH: '2',
    ARENA_DISPATCH_CHILDREN_PER_RUN: '2',
  });
}, 120_000);
afterAll(() => arena.close());

const mainSessions = (agentId?: number) =>
  arena.sql<{ id: number; agent_id: number; prompt_id: number; status: string }>(
    `select id, agent_id, prompt_id, status from sessions where kind = 'main' ${agentId ? 'and agent_id = ?' : ''} order by id`,
    agentId ? [agentId] : [],
  );
const makeDue = () => arena.sql(`update sessions set created_at = created_at - interval '2 hours' where kind = 'main'`);

describe('dispatch', () => {
  it('serves every due agent in one step, a transaction per batch, continuing as new to keep its history short', async () => {
    // Counters belong to the process: the step's own are the difference.
    const servedBefore = await metricNow(arena.t, 'arena_dispatch_agents_served_total');
    const stepsBefore = await metricNow(arena.t, 'arena_dispatch_step_seconds_count');
    const handle = await arena.client.workflow.start(dispatchArena, {
      taskQueue: arena.t.config.taskQueue,
      workflowId: `dispatch-every-due-${Date.now()}`,
    });
    // The step's result follows it across runs: every agent, though a batch holds two.
    expect(await handle.result()).toBe(3);
    const first = await arena.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');

    const all = await arena.sql<{ id: number; agent_id: number; dedupe_key: string }>(
      `select id, agent_id, dedupe_key from sessions where kind = 'main' order by id`,
    );
    expect(new Set(all.map((s) => s.agent_id))).toEqual(new Set(arena.agents.map((a) => a.id)));
    // Keyed by the step (its first run) and the batch: two in batch 0, one in batch 1.
    const batches = all.map((s) => s.dedupe_key.split(':').slice(1, 3).join(':'));
    expect(batches).toEqual([0, 0, 1].map((b) => `${handle.firstExecutionRunId}:${b}`));
    await Promise.all(all.map((s) => arena.client.workflow.getHandle(deliveryWorkflowId(s.id)).result()));
    expect((await mainSessions()).every((s) => s.status === 'answered')).toBe(true);

    const metrics = (await arena.t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metricSample(metrics, 'arena_dispatch_due_agents')).toBe(3);
    expect(metricSample(metrics, 'arena_dispatch_served_agents')).toBe(3);
    expect(metricSample(metrics, 'arena_dispatch_agents_served_total')).toBe(servedBefore + 3);
    expect(metricSample(metrics, 'arena_dispatch_backlog_agents')).toBe(0);
    expect(metricSample(metrics, 'arena_dispatch_longest_wait_seconds')).toBe(0);
    expect(metricSample(metrics, 'arena_dispatch_step_seconds_count')).toBe(stepsBefore + 1);
  });

  it('makes a retried batch return the sessions its first attempt created, and the next batch the rest', async () => {
    await makeDue();
    const activities = arenaActivities({ orm: arena.t.orm, arena: arena.t.config.arena } as ActivityDeps);
    const batch = { ...(await activities.beginDispatchStep()), stepKey: 'retried-step', served: 0 };
    const first = await activities.dispatchMainPromptBatch({ ...batch, batch: 0 });
    expect(first.deliveries).toHaveLength(2);
    expect(first.more).toBe(true);
    expect(await activities.dispatchMainPromptBatch({ ...batch, batch: 0 })).toEqual(first);
    const second = await activities.dispatchMainPromptBatch({ ...batch, batch: 1, served: 2 });
    expect(second.deliveries).toHaveLength(1);
    expect(second.more).toBe(false);
    expect(new Set([...first.deliveries, ...second.deliveries].map((d) => d.agentId)).size).toBe(3);
    await Promise.all(
      [...first.deliveries, ...second.deliveries].map((d) =>
        arena.client.workflow.start(deliverPrompt, {
          taskQueue: arena.t.config.taskQueue,
          workflowId: deliveryWorkflowId(d.sessionId),
          args: [d],
        }),
      ),
    );
    await Promise.all(
      [...first.deliveries, ...second.deliveries].map((d) =>
        arena.client.workflow.getHandle(deliveryWorkflowId(d.sessionId)).result(),
      ),
    );
  });

  it('respects the gap since an agent last got a main prompt', async () => {
    expect(await arena.dispatch()).toHaveLength(0);
    await makeDue();
    expect(await arena.dispatch()).toHaveLength(3);
  });

  it('serves an agent whose live battle answer is still in flight, and a live battle does not restart its gap', async () => {
    await makeDue();
    // Both agents of the live battle hold their answers until the test lets them go.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    arena.server.behave((req, res) => {
      if (JSON.parse(req.body).category === 'live')
        void held.then(() => answer(200, { response: 'live answer' })(req, res));
      else answer(200, { response: `answer from ${req.url}` })(req, res);
    });
    try {
      const person = await register(arena.t.app);
      const started = await arena.t.app.inject({
        method: 'POST',
        url: '/api/battles',
        headers: person.auth,
        payload: { prompt: 'A live one.', deadline_seconds: 60 },
      });
      expect(started.statusCode).toBe(202);
      const pendingLive = async () =>
        (
          await arena.sql(
            `select 1 from sessions s join prompts p on p.id = s.prompt_id where p.source = 'live' and s.status = 'pending'`,
          )
        ).length === 2;
      await until(pendingLive);
      // Every agent is due: the live prompts just sent hold nobody's turn, nor restart anybody's gap.
      const served = await arena.sql<{ agent_id: number }>(`select agent_id from sessions where id = any(?::int[])`, [
        `{${(await arena.dispatch()).join(',')}}`,
      ]);
      expect(served.map((s) => s.agent_id).sort()).toEqual(arena.agents.map((a) => a.id).sort());
    } finally {
      release();
      arena.server.behave((req, res) => answer(200, { response: `answer from ${req.url}` })(req, res));
    }
  });

  it('prefers a prompt that has exactly one answer, so a battle forms at once', async () => {
    await makeDue();
    const agent = arena.agents[2]!;
    const [target] = await arena.sql<{ id: number }>(
      `select id from prompts where source = 'pool' and not exists (select 1 from sessions s where s.prompt_id = prompts.id and s.agent_id = ?) order by id desc limit 1`,
      [agent.id],
    );
    await arena.sql(`update prompts set answer_count = 5 where source = 'pool' and answer_count = 1`);
    await arena.sql(`update prompts set answer_count = 1 where id = ?`, [target!.id]);
    // Only this agent is due now.
    await arena.sql(`update sessions set created_at = now() where kind = 'main' and agent_id <> ?`, [agent.id]);
    const [sessionId] = await arena.dispatch();
    const [row] = await arena.sql<{ prompt_id: number }>(`select prompt_id from sessions where id = ?`, [sessionId]);
    expect(row!.prompt_id).toBe(target!.id);
  });

  // Eight dispatch steps, each awaiting its deliveries: about 12 s under a full run's load.
  it('never sends an agent the same prompt twice, and sends nothing once its pool is used up', async () => {
    const agent = arena.agents[0]!;
    await arena.sql(
      `update prompts set retired_at = now() where source = 'pool' and id not in (select id from prompts where source = 'pool' order by id limit 6)`,
    );
    for (let round = 0; round < 8; round++) {
      await makeDue();
      await arena.dispatch();
    }
    const prompts = (await mainSessions(agent.id)).map((s) => s.prompt_id);
    expect(new Set(prompts).size).toBe(prompts.length);
    const [unserved] = await arena.sql<{ n: number }>(
      `select count(*)::int as n from prompts where source = 'pool' and retired_at is null and id not in (select prompt_id from sessions where agent_id = ? and kind = 'main')`,
      [agent.id],
    );
    expect(unserved?.n).toBe(0);
    await makeDue();
    const before = (await mainSessions(agent.id)).length;
    await arena.dispatch();
    expect(await mainSessions(agent.id)).toHaveLength(before);
  }, 60_000);

  it('keeps agents out until their gym is complete, unless the gym is not required', async () => {
    await arena.sql(`update prompts set retired_at = null`);
    await makeDue();
    await arena.sql(`update agents set gym_complete = false where id = ?`, [arena.agents[1]!.id]);
    const sessions = await arena.dispatch();
    const agents = await arena.sql<{ agent_id: number }>(`select agent_id from sessions where id = any(?::int[])`, [
      `{${sessions.join(',')}}`,
    ]);
    expect(agents.map((a) => a.agent_id)).not.toContain(arena.agents[1]!.id);
    expect(agents.length).toBeGreaterThan(0);

    // ARENA_REQUIRE_GYM=false lets it in: the dispatch activity, run on its own with that setting.
    await makeDue();
    const open = arenaActivities({
      orm: arena.t.orm,
      arena: { ...arena.t.config.arena, requireGym: false },
    } as ActivityDeps);
    const created = await open.dispatchMainPrompts({ dispatchKey: 'no-gym-required' });
    expect(created.map((d) => d.agentId)).toContain(arena.agents[1]!.id);
    // The same dispatch key again (a retried activity) gets the same sessions back, not new ones.
    expect(await open.dispatchMainPrompts({ dispatchKey: 'no-gym-required' })).toEqual(created);
    await Promise.all(
      created.map((d) =>
        arena.client.workflow.start(deliverPrompt, {
          taskQueue: arena.t.config.taskQueue,
          workflowId: `delivery-${d.sessionId}`,
          args: [d],
        }),
      ),
    );
  });
});
