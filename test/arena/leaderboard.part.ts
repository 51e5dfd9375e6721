import { registerJudge } from '../support/test-app';
import { startArena, type Arena } from './support';

let arena: Arena;
// Starting agents and their gyms on a busy two-core machine can take a while.
beforeAll(async () => {
  // One vote is enough for a rank here, so the rank rule is checked on every agent; and one vote
  // per pair ends judging, so the judge's votes are published (and counted) at the next refresh.
  arena = await startArena(3, { ARENA_MIN_GAP_SECONDS: '0', ARENA_MIN_VOTES: '1', ARENA_VOTES_PER_PAIR: '1' });
  await arena.dispatch();
  await arena.dispatch();
  await arena.dispatch();
}, 120_000);
afterAll(() => arena.close());

it('is empty before any vote, then lists voted agents with BT ratings, intervals, tiers and interval-aware ranks', async () => {
  await arena.refresh();
  expect((await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json()).toEqual([]);

  // A judge prefers agent-0's answers whenever they appear (trusted: new accounts' votes count later).
  const judge = await registerJudge(arena.t);
  for (;;) {
    const res = await arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: judge.auth });
    if (res.statusCode === 204) break;
    const b = res.json();
    const winner =
      b.a.response === 'answer from /agent-0' ? 'a' : b.b.response === 'answer from /agent-0' ? 'b' : 'tie';
    expect(
      (
        await arena.t.app.inject({
          method: 'POST',
          url: `/api/judge/${b.battle_id}/vote`,
          headers: judge.auth,
          payload: { winner },
        })
      ).statusCode,
    ).toBe(200);
  }
  expect(await arena.refresh()).toMatch(/^3 agents from \d+ votes; 0 judges flagged$/);
  const board = (await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json();
  expect(board).toHaveLength(3);
  for (const row of board) {
    expect(Object.keys(row).sort()).toEqual(
      [
        'agent_id',
        'bt_rating',
        'ci_high',
        'ci_low',
        'coding',
        'coding_suites',
        'elo',
        'losses',
        'name',
        'owner_handle',
        'provisional',
        'rank',
        'ties',
        'tier',
        'votes',
        'wins',
      ].sort(),
    );
    expect(row.ci_low).toBeLessThan(row.bt_rating);
    expect(row.ci_high).toBeGreaterThan(row.bt_rating);
    expect(row.provisional).toBe(false);
    // No coding session yet: nothing attempted, no interval.
    expect(row.coding).toEqual({
      passed: 0,
      attempted: 0,
      ci_low: null,
      ci_high: null,
      arena_errors: 0,
      tampered: 0,
      tampered_share: null,
      arena_error_share: null,
      arena_errors_unusual: false,
      mean_steps: null,
      mean_seconds: null,
    });
    expect(row.votes).toBe(row.wins + row.losses + row.ties);
    // rank = 1 + agents whose interval lies wholly above this one's
    expect(row.rank).toBe(1 + board.filter((o: { ci_low: number }) => o.ci_low > row.ci_high).length);
  }
  expect(board[0].agent_id).toBe(arena.agents[0]!.id);
  expect(board.reduce((sum: number, r: { bt_rating: number }) => sum + r.bt_rating, 0) / 3).toBeCloseTo(1500, 6);
});

it('flags a judge who votes against a clear consensus and leaves their votes out of the fit', async () => {
  // Two agents of the arena; agent-0's answers are plainly better. Twelve honest judges agree; one always disagrees.
  const [best, worst] = [arena.agents[0]!, arena.agents[1]!];
  const [pair] = await arena.sql<{ prompt_id: number; a: number; b: number }>(
    `select x.prompt_id, x.id as a, y.id as b from sessions x join sessions y on y.prompt_id = x.prompt_id
     where x.agent_id = ? and y.agent_id = ? and x.kind = 'main' and y.kind = 'main' limit 1`,
    [best.id, worst.id],
  );
  expect(pair).toBeDefined();
  const judges: number[] = [];
  for (let j = 0; j < 13; j++) judges.push((await registerJudge(arena.t)).userId);
  const contrarian = judges[12]!;
  let n = 0;
  for (const judge of judges) {
    for (let v = 0; v < 6; v++) {
      await arena.sql(
        `insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high, status, winner, judged_as, voted_at, created_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, 'voted', ?, 'trusted', now() - interval '3 days', now())`,
        [
          pair!.prompt_id,
          judge,
          pair!.a,
          pair!.b,
          best.id,
          worst.id,
          5_000_000 + n,
          5_000_000 + n++,
          judge === contrarian ? 'b' : 'a',
        ],
      );
    }
  }
  // Both answers out of judging: the votes are published, and counted, at the refresh.
  await arena.sql(`update sessions set judging_until = null where id in (?, ?)`, [pair!.a, pair!.b]);
  expect(await arena.refresh()).toMatch(/; 1 judges flagged$/);
  const flagged = await arena.sql<{ kind: string; judge_id: number }>(`select kind, judge_id from vote_flags`);
  expect(flagged).toEqual([{ kind: 'outlier', judge_id: contrarian }]);
  const [voted] = await arena.sql<{ total: number; judges: number }>(
    `select count(*)::int as total, count(distinct judge_id)::int as judges from battles where status = 'voted' and judge_id <> ?`,
    [contrarian],
  );
  const board = (await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json();
  const votesCounted = board.reduce((sum: number, r: { votes: number }) => sum + r.votes, 0) / 2;
  expect(votesCounted).toBe(voted?.total);
  // The export lists what the board counted: none of the flagged judge's votes, everyone else's.
  const exported = (await arena.t.app.inject({ method: 'GET', url: '/api/votes' })).body.trim().split('\n');
  expect(exported).toHaveLength(voted!.total);
  expect(new Set(exported.map((line) => JSON.parse(line).judge)).size).toBe(voted!.judges);
});
