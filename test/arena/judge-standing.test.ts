/**
 * Judges earn their weight: a new account's votes move Elo by an eighth and stay off the boards
 * (kept, and counted from the refresh after the judge is established); judges are established by an
 * operator, or by age and agreement with established judges; an operator's void takes a judge's
 * votes back, Elo and all, in the agents' public histories.
 */
import { eloUpdate } from '../../domain/ratings/elo';
import { trustJudgesNamed, voidJudgesNamed } from '../../services/judges';
import { refreshLeaderboard } from '../../workflows';
import { register, registerJudge, type Registered } from '../support/test-app';
import { startArena, type Arena } from './support';

let arena: Arena;
beforeAll(async () => {
  arena = await startArena(3, { ARENA_MIN_GAP_SECONDS: '0', ARENA_MIN_VOTES: '1' });
  for (let i = 0; i < 6; i++) await arena.dispatch();
}, 180_000);
afterAll(() => arena.close());

let refreshes = 0;
const refresh = () =>
  arena.client.workflow.execute(refreshLeaderboard, {
    taskQueue: arena.t.config.taskQueue,
    workflowId: `refresh-standing-${++refreshes}-${Date.now()}`,
  });
const next = (who: Registered) =>
  arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: who.auth, remoteAddress: who.ip });
const vote = (who: Registered, battleId: number, winner: string) =>
  arena.t.app.inject({
    method: 'POST',
    url: `/api/judge/${battleId}/vote`,
    headers: who.auth,
    remoteAddress: who.ip,
    payload: { winner },
  });
/** The battle's answers leave judging, so the next refresh publishes its vote. */
const endJudging = (battleId: number) =>
  arena.sql(
    `update sessions s set judging_until = now() from battles b
     where b.id = ? and s.id in (b.session_a_id, b.session_b_id) and s.judging_until > now()`,
    [battleId],
  );
const exported = async () =>
  (await arena.t.app.inject({ method: 'GET', url: '/api/votes' })).body
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).battle_id as number);

describe('judge standing', () => {
  it("moves Elo by an eighth for a new account's vote, keeps it off the board, and counts it once an operator trusts the judge", async () => {
    const judge = await register(arena.t.app, '203.0.113.1');
    const battle = (await next(judge)).json();
    const res = await vote(judge, battle.battle_id, 'a');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const expected = eloUpdate(body.a.elo_before, body.b.elo_before, 'a', 1 / 8);
    expect([body.a.delta, body.b.delta]).toEqual([expected.a.delta, expected.b.delta]);
    expect(body.a.delta).toBeGreaterThan(0);
    expect(body.a.delta).toBeLessThanOrEqual(4);
    expect(body.judge).toEqual({
      established: false,
      elo_weight: 0.125,
      note: expect.stringMatching(
        /^Your votes count on the leaderboard once your account is established: 7 days old, and 20 votes on pairs established judges also voted on, agreeing with them at least half the time \(so far your account is 0 of 7 days old; 0 of 20 votes compared with established judges'\)\. Until then each vote moves Elo an eighth as much, and it is kept: it counts from the first refresh after you are established\.$/,
      ),
    });

    await endJudging(battle.battle_id);
    await refresh();
    // Published, not counted: no board row, nothing in the export, and operators see why.
    expect((await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json()).toEqual([]);
    expect(await exported()).toEqual([]);
    expect(await arena.sql(`select battle_id, reason from uncounted_votes`)).toEqual([
      { battle_id: battle.battle_id, reason: 'new-judge' },
    ]);

    // Trusted now: the export still matches the board until the refresh counts the vote in both.
    await trustJudgesNamed(arena.t.orm.em.fork(), [judge.username]);
    expect(await exported()).toEqual([]);
    await refresh();
    expect(await exported()).toEqual([battle.battle_id]);
    const board = (await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json();
    expect(board.map((r: { votes: number }) => r.votes)).toEqual([1, 1]);
  });

  it('establishes a judge whose account is old enough and whose votes agree with established judges on the same pairs', async () => {
    const seed = await registerJudge(arena.t, '203.0.113.2');
    const [old, young, contrary] = [
      await register(arena.t.app, '203.0.113.3'),
      await register(arena.t.app, '203.0.113.4'),
      await register(arena.t.app, '203.0.113.5'),
    ];
    await arena.sql(`update users set created_at = now() - interval '8 days' where id in (?, ?)`, [
      old.userId,
      contrary.userId,
    ]);
    const [pair] = await arena.sql<{ prompt_id: number; a: number; b: number; agent_a: number; agent_b: number }>(
      `select x.prompt_id, x.id as a, y.id as b, x.agent_id as agent_a, y.agent_id as agent_b
       from sessions x join sessions y on y.prompt_id = x.prompt_id and y.id > x.id
       where x.kind = 'main' and y.kind = 'main' and x.agent_id <> y.agent_id limit 1`,
    );
    // 20 pairs the seed judged: `a` on each, except a tie on the last two. The old judge agrees on
    // 18 and calls the two the seed tied `b` (half each); the contrary one picks `b` throughout.
    let pairNumber = 0;
    const judged = async (judgeId: number, winner: (k: number) => string) => {
      for (let k = 0; k < 20; k++)
        await arena.sql(
          `insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high, status, winner, voted_at, created_at)
           values (?, ?, ?, ?, ?, ?, ?, ?, 'voted', ?, now() - interval '3 days', now())`,
          [
            pair!.prompt_id,
            judgeId,
            pair!.a,
            pair!.b,
            pair!.agent_a,
            pair!.agent_b,
            7_000_000 + k,
            7_000_000 + k,
            winner(k),
          ],
        );
      pairNumber += 20;
    };
    await judged(seed.userId, (k) => (k >= 18 ? 'tie' : 'a'));
    await judged(old.userId, (k) => (k >= 18 ? 'b' : 'a'));
    await judged(young.userId, () => 'a');
    await judged(contrary.userId, () => 'b');
    expect(pairNumber).toBe(80);
    await refresh();
    const standings = await arena.sql<{
      judge_id: number;
      established: boolean;
      compared_votes: number;
      agreement: number;
    }>(
      `select judge_id, established_at is not null as established, compared_votes, agreement from judge_standings
       where judge_id in (?, ?, ?) order by judge_id`,
      [old.userId, young.userId, contrary.userId],
    );
    expect(standings).toEqual([
      { judge_id: old.userId, established: true, compared_votes: 20, agreement: (18 + 2 * 0.5) / 20 },
      { judge_id: young.userId, established: false, compared_votes: 20, agreement: (18 + 2 * 0.5) / 20 },
      { judge_id: contrary.userId, established: false, compared_votes: 20, agreement: (0 + 2 * 0.5) / 20 },
    ]);
  });

  it("voids a judge's votes: the Elo changes are taken back in the agents' public histories, and the board drops them at the next refresh", async () => {
    const judge = await registerJudge(arena.t, '203.0.113.6');
    const battle = (await next(judge)).json();
    const voted = (await vote(judge, battle.battle_id, 'b')).json();
    await endJudging(battle.battle_id);
    await refresh();
    expect(await exported()).toContain(battle.battle_id);

    const result = await voidJudgesNamed(arena.t.orm.em.fork(), [judge.username], 'a test of voids');
    expect(result).toEqual({ judges: [judge.username], votes: 1, reversed: 2 });
    const history = (
      await arena.t.app.inject({ method: 'GET', url: `/api/agents/${voted.b.agent_id}/ratings` })
    ).json();
    const entries = history.history.filter((h: { battle_id: number }) => h.battle_id === battle.battle_id);
    expect(entries).toEqual([
      expect.objectContaining({ kind: 'vote', before: voted.b.elo_before, after: voted.b.elo_after }),
      expect.objectContaining({ kind: 'void', delta: -voted.b.delta }),
    ]);
    expect(history.elo).toBe(entries[1].after);
    // Until the refresh, the export still lists what the board counts; then neither has it.
    expect(await exported()).toContain(battle.battle_id);
    await refresh();
    expect(await exported()).not.toContain(battle.battle_id);

    // A voided judge's later votes move nothing and count nowhere.
    const later = (await next(judge)).json();
    const after = (await vote(judge, later.battle_id, 'a')).json();
    expect([after.a.delta, after.b.delta, after.judge.elo_weight]).toEqual([0, 0, 0]);
    expect(after.judge.note).toBe('An operator voided your votes: they move no rating and count on no board.');
  });
});
