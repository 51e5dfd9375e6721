/** applyVote on its own: the vote workflow runs it as a local activity, which a worker may run again after it wrote, so a second run must change nothing. */
import { MockActivityEnvironment } from '@temporalio/testing';
import { voteActivities } from '../../activities/votes';
import { registerJudge } from '../support/test-app';
import { startArena, type Arena } from '../arena/support';

let arena: Arena;
let activities: ReturnType<typeof voteActivities>;

beforeAll(async () => {
  arena = await startArena(3, { ARENA_MIN_GAP_SECONDS: '0' });
  // Two steps: every agent answers two pool prompts; the preference for one-answer prompts makes them overlap.
  await arena.dispatch();
  await arena.dispatch();
  activities = voteActivities({ orm: arena.t.orm, arena: arena.t.config.arena });
}, 120_000);
afterAll(() => arena?.close());

const run = <R>(fn: () => Promise<R>): Promise<R> => new MockActivityEnvironment().run(fn) as Promise<R>;

/** A battle handed to a new judge, as judge/next makes it. */
async function openBattle(): Promise<number> {
  const judge = await registerJudge(arena.t);
  const res = await arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: judge.auth });
  expect(res.statusCode).toBe(200);
  return res.json().battle_id;
}

/** What a vote wrote: the sides' ratings, their rating changes, the battle and its pair's vote count. */
async function written(battleId: number) {
  const [battle] = await arena.sql<{ a: number; b: number; status: string; winner: string; votes: number }>(
    `select b.agent_a_id as a, b.agent_b_id as b, b.status, b.winner, p.votes from battles b
     join arena_pairs p on p.session_low_id = b.pair_low and p.session_high_id = b.pair_high where b.id = ?`,
    [battleId],
  );
  const elos = await arena.sql<{ id: number; elo: number }>(
    `select id, elo from agents where id in (?, ?) order by id`,
    [battle!.a, battle!.b],
  );
  const changes = await arena.sql<{ agent_id: number }>(`select agent_id from rating_changes where battle_id = ?`, [
    battleId,
  ]);
  return { battle, elos, changes: changes.length };
}

describe('applyVote', () => {
  it('applied again (a retried attempt after the first one wrote) returns the first result and moves no rating twice', async () => {
    const battleId = await openBattle();
    const first = await run(() => activities.applyVote({ battleId, winner: 'a' }));
    const once = await written(battleId);
    expect(once).toMatchObject({ battle: { status: 'voted', winner: 'a', votes: 1 }, changes: 2 });
    expect(first).toMatchObject({
      battleId,
      winner: 'a',
      a: { after: first.a.before + 16 },
      b: { after: first.b.before - 16 },
    });

    // The retry carries the same input; a different verdict would not change the stored one either.
    expect(await run(() => activities.applyVote({ battleId, winner: 'a' }))).toEqual(first);
    expect(await run(() => activities.applyVote({ battleId, winner: 'b' }))).toEqual(first);
    expect(await written(battleId)).toEqual(once);
  });

  it('two attempts at once (one lost to a timeout while it still ran) apply the vote once', async () => {
    const battleId = await openBattle();
    // The pair may be the one voted above: it is the pair due first, and this is another judge.
    const before = await written(battleId);
    const [x, y] = await Promise.all([
      run(() => activities.applyVote({ battleId, winner: 'b' })),
      run(() => activities.applyVote({ battleId, winner: 'b' })),
    ]);
    expect(y).toEqual(x);
    const after = await written(battleId);
    expect(after).toMatchObject({
      battle: { status: 'voted', winner: 'b', votes: before.battle!.votes + 1 },
      changes: 2,
    });
    expect(x.b.after - x.b.before).toBeGreaterThan(0);
    expect(x.a.after - x.a.before).toBe(-(x.b.after - x.b.before));
    expect(after.elos).toEqual(
      expect.arrayContaining([
        { id: x.a.agentId, elo: x.a.after },
        { id: x.b.agentId, elo: x.b.after },
      ]),
    );
  });
});
