import { startArena, type Arena } from './support';
import { metricNow, metricSample } from '../support/metrics';

let arena: Arena;
beforeAll(async () => {
  // A step serves at most two agents, one per batch: four due agents overflow it.
  arena = await startArena(4, {
    ARENA_MIN_GAP_SECONDS: '3600',
    ARENA_DISPATCH_BATCH: '1',
    ARENA_DISPATCH_STEP_MAX: '2',
  });
}, 120_000);
afterAll(() => arena.close());

/** A main session answered `hoursAgo`, for every pool prompt or for one. */
const servedBefore = (agentId: number, hoursAgo: number, everyPrompt: boolean) =>
  arena.sql(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, response, created_at)
     select ?, 'main', p.id, 'push', p.category, 300, 'answered', 'earlier answer', now() - make_interval(hours => ?)
     from prompts p where p.source = 'pool' order by p.id ${everyPrompt ? '' : 'limit 1'}`,
    [agentId, hoursAgo],
  );
const agentsOf = (sessionIds: number[]) =>
  arena.sql<{ agent_id: number }>(`select agent_id from sessions where id = any(?::int[]) order by id`, [
    `{${sessionIds.join(',')}}`,
  ]);

describe('a capped dispatch step', () => {
  it('serves the longest waiting first, skips agents with no pool prompt left, and the rest lead the next step', async () => {
    const [spent, oldest, middle, newest] = arena.agents.map((a) => a.id) as [number, number, number, number];
    // The agent served longest ago has had every pool prompt: it must not take a place in the step.
    await servedBefore(spent, 5, true);
    await servedBefore(oldest, 4, false);
    await servedBefore(middle, 3, false);
    await servedBefore(newest, 2, false);

    const servedSoFar = await metricNow(arena.t, 'arena_dispatch_agents_served_total');
    const first = await agentsOf(await arena.dispatch());
    expect(first.map((r) => r.agent_id)).toEqual([oldest, middle]);
    let metrics = (await arena.t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metricSample(metrics, 'arena_dispatch_due_agents')).toBe(3);
    expect(metricSample(metrics, 'arena_dispatch_served_agents')).toBe(2);
    expect(metricSample(metrics, 'arena_dispatch_backlog_agents')).toBe(1);
    // The one left has been due since an hour ago (its last prompt two hours ago, the gap one hour).
    const wait = metricSample(metrics, 'arena_dispatch_longest_wait_seconds')!;
    expect(wait).toBeGreaterThanOrEqual(3600);
    expect(wait).toBeLessThan(3600 + 120);

    const second = await agentsOf(await arena.dispatch());
    expect(second.map((r) => r.agent_id)).toEqual([newest]);
    metrics = (await arena.t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metricSample(metrics, 'arena_dispatch_backlog_agents')).toBe(0);
    expect(metricSample(metrics, 'arena_dispatch_agents_served_total')).toBe(servedSoFar + 3);
  });
});
