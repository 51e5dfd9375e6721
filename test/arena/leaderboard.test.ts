import { register } from '../support/test-app';
import { startArena, type Arena } from './support';

let arena: Arena;
beforeAll(async () => {
  arena = await startArena(3, { ARENA_MIN_GAP_SECONDS: '0' });
  await arena.dispatch();
  await arena.dispatch();
  await arena.dispatch();
});
afterAll(() => arena.close());

it('is empty before any vote, then lists voted agents with BT ratings, intervals, tiers and interval-aware ranks', async () => {
  const refresh = () => arena.client.workflow.execute('refreshLeaderboard', { taskQueue: arena.t.config.taskQueue, workflowId: `refresh-${Date.now()}` });
  await refresh();
  expect((await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json()).toEqual([]);

  // A judge prefers agent-0's answers whenever they appear.
  const judge = await register(arena.t.app);
  for (;;) {
    const res = await arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: judge.auth });
    if (res.statusCode === 204) break;
    const b = res.json();
    const winner = b.a.response === 'answer from /agent-0' ? 'a' : b.b.response === 'answer from /agent-0' ? 'b' : 'tie';
    expect((await arena.t.app.inject({ method: 'POST', url: `/api/judge/${b.battle_id}/vote`, headers: judge.auth, payload: { winner } })).statusCode).toBe(200);
  }
  expect(await refresh()).toMatch(/^3 agents from \d+ votes; 0 judges flagged$/);
  const board = (await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json();
  expect(board).toHaveLength(3);
  for (const row of board) {
    expect(Object.keys(row).sort()).toEqual(
      ['agent_id', 'bt_rating', 'ci_high', 'ci_low', 'elo', 'losses', 'name', 'owner_handle', 'rank', 'ties', 'tier', 'votes', 'wins'].sort(),
    );
    expect(row.ci_low).toBeLessThanOrEqual(row.bt_rating);
    expect(row.ci_high).toBeGreaterThanOrEqual(row.bt_rating);
    expect(row.votes).toBe(row.wins + row.losses + row.ties);
    // rank = 1 + agents whose interval lies wholly above this one's
    expect(row.rank).toBe(1 + board.filter((o: { ci_low: number }) => o.ci_low > row.ci_high).length);
  }
  expect(board[0].agent_id).toBe(arena.agents[0]!.id);
  expect(board.reduce((sum: number, r: { bt_rating: number }) => sum + r.bt_rating, 0) / 3).toBeCloseTo(1500, 6);
});
