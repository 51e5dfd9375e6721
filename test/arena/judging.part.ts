import { registerJudge, type Registered } from '../support/test-app';
import { startArena, type Arena } from './support';

let arena: Arena;
let judge: Registered;
// Starting agents and their gyms on a busy two-core machine can take a while.
beforeAll(async () => {
  arena = await startArena(3, { ARENA_MIN_GAP_SECONDS: '0', ARENA_DAILY_VOTES: '3' });
  // An operator's trusted judge: its votes move Elo in full (a judge in probation's, not at all: judge-standing.part.ts).
  judge = await registerJudge(arena.t);
  // Two steps: every agent answers two pool prompts; the preference for one-answer prompts makes them overlap.
  await arena.dispatch();
  await arena.dispatch();
}, 120_000);
afterAll(() => arena.close());

const next = (who: Registered = judge) =>
  arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: who.auth });
const vote = (battleId: number, winner: string, who: Registered = judge) =>
  arena.t.app.inject({ method: 'POST', url: `/api/judge/${battleId}/vote`, headers: who.auth, payload: { winner } });
const elo = async (agentId: number) =>
  (await arena.sql<{ elo: number }>(`select elo from agents where id = ?`, [agentId]))[0]!.elo;

describe('judging', () => {
  it('shows an anonymous pair of answers to one prompt from agents of different owners, until voted', async () => {
    const res = await next();
    expect(res.statusCode).toBe(200);
    const battle = res.json();
    expect(battle).toMatchObject({
      live: false,
      status: 'open',
      winner: null,
      a: { status: 'answered' },
      b: { status: 'answered' },
    });
    // Field names, not words: a pool prompt may well speak of ownership.
    expect(JSON.stringify(battle)).not.toMatch(/"(agent_id|agent|owner|owner_handle)":/);
    expect(battle.a.response).not.toBe(battle.b.response);
    const [row] = await arena.sql<{ oa: number; ob: number; pa: number; pb: number }>(
      `select a1.owner_id as oa, a2.owner_id as ob, s1.prompt_id as pa, s2.prompt_id as pb from battles b
       join agents a1 on a1.id = b.agent_a_id join agents a2 on a2.id = b.agent_b_id
       join sessions s1 on s1.id = b.session_a_id join sessions s2 on s2.id = b.session_b_id where b.id = ?`,
      [battle.battle_id],
    );
    expect(row!.oa).not.toBe(row!.ob);
    expect(row!.pa).toBe(row!.pb);
    // Nothing of the battle is public before the vote: not its prompt's id either.
    expect(battle.prompt).toEqual({ text: expect.any(String), category: expect.any(String) });
    // Asking again before voting shows the same battle.
    expect((await next()).json().battle_id).toBe(battle.battle_id);
  });

  it('applies a vote once: both Elo ratings move by the worked amount, and a second vote is 409', async () => {
    const battle = (await next()).json();
    const [sides] = await arena.sql<{ agent_a_id: number; agent_b_id: number }>(
      `select agent_a_id, agent_b_id from battles where id = ?`,
      [battle.battle_id],
    );
    const [beforeA, beforeB] = [await elo(sides!.agent_a_id), await elo(sides!.agent_b_id)];
    expect([beforeA, beforeB]).toEqual([1500, 1500]);
    const res = await vote(battle.battle_id, 'a');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      battle_id: battle.battle_id,
      winner: 'a',
      a: { agent_id: sides!.agent_a_id, elo_before: 1500, elo_after: 1516, delta: 16, tier: 'Specialist' },
      b: { agent_id: sides!.agent_b_id, elo_before: 1500, elo_after: 1484, delta: -16, tier: 'Specialist' },
    });
    expect([await elo(sides!.agent_a_id), await elo(sides!.agent_b_id)]).toEqual([1516, 1484]);
    const again = await vote(battle.battle_id, 'b');
    expect(again.statusCode).toBe(409);
    expect([await elo(sides!.agent_a_id), await elo(sides!.agent_b_id)]).toEqual([1516, 1484]);
    const history = (
      await arena.t.app.inject({ method: 'GET', url: `/api/agents/${sides!.agent_a_id}/ratings` })
    ).json();
    expect(history).toMatchObject({
      agent_id: sides!.agent_a_id,
      elo: 1516,
      tier: 'Specialist',
      history: [{ battle_id: battle.battle_id, before: 1500, after: 1516, delta: 16 }],
    });
  });

  it('gives the next judge the pair due first (one whose answers are being judged), and never the same pair twice to one judge', async () => {
    const pairOf = async (battleId: number) =>
      (
        await arena.sql<{ pair: string }>(`select pair_low || '-' || pair_high as pair from battles where id = ?`, [
          battleId,
        ])
      )[0]!.pair;
    const votesOn = async (pair: string) =>
      (
        await arena.sql<{ n: number }>(
          `select count(*)::int as n from battles where pair_low || '-' || pair_high = ? and status = 'voted'`,
          [pair],
        )
      )[0]!.n;
    const [first, second] = [await registerJudge(arena.t), await registerJudge(arena.t)];
    const b1 = (await next(first)).json();
    const p1 = await pairOf(b1.battle_id);
    expect((await vote(b1.battle_id, 'b', first)).statusCode).toBe(200);
    const [pairs] = await arena.sql<{ unjudged: number }>(
      `select count(*)::int as unjudged from sessions x join sessions y on y.prompt_id = x.prompt_id and y.id > x.id
       join agents ax on ax.id = x.agent_id join agents ay on ay.id = y.agent_id
       where x.kind = 'main' and y.kind = 'main' and x.status = 'answered' and y.status = 'answered' and ax.owner_id <> ay.owner_id
         and not exists (select 1 from battles b where b.pair_low = x.id and b.pair_high = y.id and b.status = 'voted')`,
    );
    expect(pairs?.unjudged).toBeGreaterThan(0);
    // Another judge gets a pair that is due first: the one just judged (its answers' judging window
    // began), or one of its answers' other pairs.
    const p2 = await pairOf((await next(second)).json().battle_id);
    const [p1Low, p1High] = p1.split('-');
    expect(p2 === p1 || p2.split('-').some((id) => id === p1Low || id === p1High)).toBe(true);
    if (p2 !== p1) expect(await votesOn(p2)).toBe(0);
    // The first judge never sees their pair again.
    const again = await next(first);
    if (again.statusCode === 200) expect(await pairOf(again.json().battle_id)).not.toBe(p1);
  });

  it('never shows a judge answers of their own agents, and says 204 when nothing is left', async () => {
    const owner = arena.agents[0]!.owner;
    const mine = arena.agents[0]!.id;
    for (;;) {
      const res = await next(owner);
      if (res.statusCode === 204) break;
      const [row] = await arena.sql<{ agent_a_id: number; agent_b_id: number }>(
        `select agent_a_id, agent_b_id from battles where id = ?`,
        [res.json().battle_id],
      );
      expect([row!.agent_a_id, row!.agent_b_id]).not.toContain(mine);
      await arena.sql(
        `update battles set status = 'voted', voted_at = now() - interval '2 days', winner = 'tie' where id = ?`,
        [res.json().battle_id],
      );
    }
    expect((await next(owner)).body).toBe('');
  });

  it('refuses a vote by a judge on their own agents and on a battle not theirs (both 404), and past the daily cap (429)', async () => {
    const owner = arena.agents[1]!.owner;
    const [s1] = await arena.sql<{ id: number; prompt_id: number; agent_id: number }>(
      `select id, prompt_id, agent_id from sessions where kind = 'main' and agent_id = ? limit 1`,
      [arena.agents[1]!.id],
    );
    const [s2] = await arena.sql<{ id: number; agent_id: number }>(
      `select id, agent_id from sessions where kind = 'main' and agent_id <> ? limit 1`,
      [arena.agents[1]!.id],
    );
    const [own] = await arena.sql<{ id: number }>(
      `insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high, status, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'open', now()) returning id`,
      [
        s1!.prompt_id,
        owner.userId,
        s1!.id,
        s2!.id,
        s1!.agent_id,
        s2!.agent_id,
        Math.min(s1!.id, s2!.id),
        Math.max(s1!.id, s2!.id),
      ],
    );
    // Judging never hands out such a battle; one forged here is not the judge's to vote on.
    const forbidden = await vote(own!.id, 'a', owner);
    expect(forbidden.statusCode).toBe(404);
    expect(forbidden.json().detail).toBe('battle not found');
    expect((await vote(own!.id, 'a')).statusCode).toBe(404);

    const capped = await registerJudge(arena.t);
    await arena.sql(
      `insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high, status, winner, voted_at, created_at)
       select prompt_id, ?, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high + 1000000 + g, 'voted', 'tie', now(), now()
       from battles, generate_series(1, 3) g where battles.id = ?`,
      [capped.userId, own!.id],
    );
    const battle = await next(capped);
    expect(battle.statusCode).toBe(200);
    const res = await vote(battle.json().battle_id, 'a', capped);
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json().detail).toMatch(/daily vote limit reached \(3 a day\)/);
  });

  it('validates the verdict and the battle id', async () => {
    const bad = await vote(1, 'left');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/^winner /);
    expect(
      (
        await arena.t.app.inject({
          method: 'POST',
          url: '/api/judge/abc/vote',
          headers: judge.auth,
          payload: { winner: 'a' },
        })
      ).statusCode,
    ).toBe(400);
    expect((await arena.t.app.inject({ method: 'GET', url: '/api/judge/next' })).statusCode).toBe(401);
  });
});
