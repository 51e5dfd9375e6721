import type { ActivityDeps } from '../../activities';
import { arenaActivities } from '../../activities/arena';
import { startArena, type Arena } from './support';
import { deliverPrompt } from '../../workflows';

let arena: Arena;
// Starting agents and their gyms on a busy two-core machine can take a while.
beforeAll(async () => {
  // A long gap, so a test makes an agent due by moving its last main prompt back in time.
  arena = await startArena(3, { ARENA_MIN_GAP_SECONDS: '3600', ARENA_DISPATCH_BATCH: '2' });
}, 120_000);
afterAll(() => arena.close());

const mainSessions = (agentId?: number) =>
  arena.sql<{ id: number; agent_id: number; prompt_id: number; status: string }>(
    `select id, agent_id, prompt_id, status from sessions where kind = 'main' ${agentId ? 'and agent_id = ?' : ''} order by id`,
    agentId ? [agentId] : [],
  );
const makeDue = () => arena.sql(`update sessions set created_at = created_at - interval '2 hours' where kind = 'main'`);

describe('dispatch', () => {
  it('serves at most the batch per step, longest waiting first, and the rest on the next step', async () => {
    const first = await arena.dispatch();
    expect(first).toHaveLength(2);
    const second = await arena.dispatch();
    expect(second).toHaveLength(1);
    const all = await mainSessions();
    expect(new Set(all.map((s) => s.agent_id))).toEqual(new Set(arena.agents.map((a) => a.id)));
    expect(all.every((s) => s.status === 'answered')).toBe(true);
  });

  it('respects the gap since an agent last got a main prompt', async () => {
    expect(await arena.dispatch()).toHaveLength(0);
    await makeDue();
    expect(await arena.dispatch()).toHaveLength(2);
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
  });

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
