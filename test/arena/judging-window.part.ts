/**
 * The board does not stall: judge/next hands out the pair due first; handing out a pair starts its
 * answers' judging window (ARENA_JUDGING_WINDOW_MINUTES), after which they leave judging and their
 * votes are published however few judges came; a pair is handed out only with a third of the window
 * left, and a vote cast after its answers left judging (their text public) is never published.
 */
import { registerJudge, type Registered } from '../support/test-app';
import { startArena, type Arena } from './support';

let arena: Arena;
beforeAll(async () => {
  arena = await startArena(3, { ARENA_MIN_GAP_SECONDS: '0', ARENA_MIN_VOTES: '1' });
  for (let i = 0; i < 6; i++) await arena.dispatch();
}, 180_000);
afterAll(() => arena.close());

const next = (who: Registered) =>
  arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: who.auth, remoteAddress: who.ip });
const vote = (who: Registered, battleId: number, winner = 'a') =>
  arena.t.app.inject({
    method: 'POST',
    url: `/api/judge/${battleId}/vote`,
    headers: who.auth,
    remoteAddress: who.ip,
    payload: { winner },
  });
/** Minutes from now until each of the battle's answers leaves judging. */
const minutesLeft = async (battleId: number) =>
  (
    await arena.sql<{ minutes: number }>(
      `select extract(epoch from s.judging_until - now()) / 60 as minutes from battles b
       join sessions s on s.id in (b.session_a_id, b.session_b_id) where b.id = ? order by s.id`,
      [battleId],
    )
  ).map((r) => Number(r.minutes));

describe('the judging window', () => {
  it('starts when a pair is first handed out: its answers leave judging 15 minutes later, and their other pairs come first', async () => {
    const judge = await registerJudge(arena.t, '203.0.113.70');
    const battle = (await next(judge)).json();
    for (const left of await minutesLeft(battle.battle_id)) {
      expect(left).toBeGreaterThan(14.9);
      expect(left).toBeLessThanOrEqual(15);
    }
    // Every open pair of those answers is due by the window's end, so the next judges finish them first.
    const [siblings] = await arena.sql<{ late: number; due: number }>(
      `select count(*) filter (where p.due_at > now() + interval '15 minutes')::int as late, count(*)::int as due
       from arena_pairs p join battles b on b.id = ?
       where p.open and (p.session_low_id in (b.session_a_id, b.session_b_id) or p.session_high_id in (b.session_a_id, b.session_b_id))`,
      [battle.battle_id],
    );
    expect(siblings!.late).toBe(0);
    const [earliest] = await arena.sql<{ low: number; high: number }>(
      `select session_low_id as low, session_high_id as high from arena_pairs where open order by due_at, id limit 1`,
    );
    const other = await registerJudge(arena.t, '203.0.113.71');
    const second = (await next(other)).json();
    const [pair] = await arena.sql<{ low: number; high: number }>(
      `select pair_low as low, pair_high as high from battles where id = ?`,
      [second.battle_id],
    );
    expect(pair).toEqual(earliest);
  });

  it('hands out no pair with less than a third of the window left in either answer', async () => {
    const judge = await registerJudge(arena.t, '203.0.113.72');
    const open = await arena.sql<{ low: number; high: number }>(
      `select session_low_id as low, session_high_id as high from arena_pairs where open`,
    );
    expect(open.length).toBeGreaterThan(0);
    const ids = `{${open.flatMap((p) => [p.low, p.high]).join(',')}}`;
    await arena.sql(`update sessions set judging_until = now() + interval '4 minutes' where id = any(?::int[])`, [ids]);
    expect((await next(judge)).statusCode).toBe(204);
    await arena.sql(`update sessions set judging_until = now() + interval '6 minutes' where id = any(?::int[])`, [ids]);
    expect((await next(judge)).statusCode).toBe(200);
  });

  it('publishes a vote once its answers leave judging by the window, however few votes their pairs have', async () => {
    await arena.dispatch();
    await arena.dispatch();
    const judge = await registerJudge(arena.t, '203.0.113.73');
    const battle = (await next(judge)).json();
    expect((await vote(judge, battle.battle_id)).statusCode).toBe(200);
    await arena.refresh();
    const published = async () =>
      (await arena.sql(`select 1 from public_votes where battle_id = ?`, [battle.battle_id])).length === 1;
    expect(await published()).toBe(false);
    // The window passes (15 minutes, here brought forward rather than waited out): the next refresh
    // publishes the vote, cast before its answers left judging.
    await arena.sql(
      `update sessions s set judging_until = now() from battles b
       where b.id = ? and s.id in (b.session_a_id, b.session_b_id)`,
      [battle.battle_id],
    );
    await arena.refresh();
    expect(await published()).toBe(true);
    // The refresh also closed the pairs whose answers are out of judging: nobody is handed them again.
    const [overdue] = await arena.sql<{ n: number }>(
      `select count(*)::int as n from arena_pairs where open and due_at <= now()`,
    );
    expect(overdue!.n).toBe(0);
  });

  it('moves Elo for a vote cast after its answers left judging, but never publishes it', async () => {
    await arena.dispatch();
    await arena.dispatch();
    const judge = await registerJudge(arena.t, '203.0.113.74');
    const battle = (await next(judge)).json();
    // The judge held the battle past the window: the answers' text was public when the vote came.
    await arena.sql(
      `update sessions s set judging_until = now() - interval '1 minute' from battles b
       where b.id = ? and s.id in (b.session_a_id, b.session_b_id)`,
      [battle.battle_id],
    );
    const res = await vote(judge, battle.battle_id);
    expect(res.statusCode).toBe(200);
    expect(res.json().a.delta).toBeGreaterThan(0);
    await arena.refresh();
    expect(await arena.sql(`select 1 from public_votes where battle_id = ?`, [battle.battle_id])).toEqual([]);
    const exported = (await arena.t.app.inject({ method: 'GET', url: '/api/votes' })).body;
    expect(exported).not.toContain(`"battle_id":${battle.battle_id},`);
  });
});
