/**
 * Judges earn their weight: a vote counts, and moves Elo, only if its judge was established when it
 * was cast; judges in probation are handed pairs a trusted judge has, and are established by an
 * operator, or by age and agreement with the trusted judges; an operator's void takes a judge's
 * votes back, Elo and all, in the agents' public histories.
 */
import { listJudges } from '../../cli/judges';
import { decideHoldNumbered, trustJudgesNamed, voidJudgesNamed } from '../../services/judges';
import { register, registerJudge, type Registered } from '../support/test-app';
import { startArena, type Arena } from './support';

let arena: Arena;
beforeAll(async () => {
  arena = await startArena(3, { ARENA_MIN_GAP_SECONDS: '0', ARENA_MIN_VOTES: '1' });
  for (let i = 0; i < 6; i++) await arena.dispatch();
}, 180_000);
afterAll(() => arena.close());

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

/** Two main answers to one prompt from different agents: the pair the inserted votes are on. */
/** The first prompt's answers of the arena's `first` and `second` agents (by index), in that order. */
const somePair = async (first: number, second: number) =>
  (
    await arena.sql<{ prompt_id: number; a: number; b: number; agent_a: number; agent_b: number }>(
      `select x.prompt_id, x.id as a, y.id as b, x.agent_id as agent_a, y.agent_id as agent_b
       from sessions x join sessions y on y.prompt_id = x.prompt_id
       where x.kind = 'main' and y.kind = 'main' and x.agent_id = ? and y.agent_id = ? order by x.id limit 1`,
      [arena.agents[first]!.id, arena.agents[second]!.id],
    )
  )[0]!;
type Pair = Awaited<ReturnType<typeof somePair>>;
/** A vote on the pair as a judge's vote is stored, under a pair number of its own; returns the battle. */
const insertVote = async (
  pair: Pair,
  vote: { judgeId: number; pairNumber: number; winner: string; judgedAs: string | null; votedAgo: string },
) =>
  (
    await arena.sql<{ id: number }>(
      `insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high,
         status, winner, judged_as, elo_weight, voted_at, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'voted', ?, ?, 1, now() - ?::interval, now()) returning id`,
      [
        pair.prompt_id,
        vote.judgeId,
        pair.a,
        pair.b,
        pair.agent_a,
        pair.agent_b,
        vote.pairNumber,
        vote.pairNumber,
        vote.winner,
        vote.judgedAs,
        vote.votedAgo,
      ],
    )
  )[0]!;

describe('judge standing', () => {
  it('moves no Elo for a vote cast in probation and never counts it, even once an operator trusts the judge', async () => {
    const judge = await register(arena.t.app, '203.0.113.1');
    // No judge is trusted yet: the judge in probation may take any pair, and nothing counts.
    const battle = (await next(judge)).json();
    const res = await vote(judge, battle.battle_id, 'a');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect([body.a.delta, body.b.delta]).toEqual([0, 0]);
    expect(body.judge).toEqual({
      established: false,
      elo_weight: 0,
      compared_votes: 0,
      agreement: null,
      contrary_agents: 0,
      days_left: 7,
      votes_left: 20,
      note:
        'You are in probation: your votes count on no board and move no Elo until you are established, and the votes ' +
        'you cast before then never will. So far 0 of your votes were on pairs a trusted judge also voted on, no ' +
        'agreement yet. Left before your votes count: 7 more days of account age; 20 more compared votes.',
    });

    await endJudging(battle.battle_id);
    await arena.refresh();
    expect((await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json()).toEqual([]);
    expect(await exported()).toEqual([]);
    expect(await arena.sql(`select battle_id, reason from uncounted_votes`)).toEqual([
      { battle_id: battle.battle_id, reason: 'no-reference' },
    ]);
    const page = await arena.t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/markdown' } });
    expect(page.body).toContain(
      'No vote counts yet: this arena has no trusted judge to measure votes against. An operator vouches for judges with `npm run arena -- judges trust <username>`.',
    );

    // Trusted now: the vote it cast in probation still never counts; its votes from now on do.
    await trustJudgesNamed(arena.t.orm.em.fork(), [judge.username]);
    await arena.refresh();
    expect(await exported()).toEqual([]);
    expect(await arena.sql(`select battle_id, reason from uncounted_votes`)).toEqual([
      { battle_id: battle.battle_id, reason: 'probation' },
    ]);
    const later = (await next(judge)).json();
    const counted = (await vote(judge, later.battle_id, 'b')).json();
    expect(counted.a.delta).not.toBe(0);
    expect(counted.judge).toMatchObject({ established: true, elo_weight: 1, note: null });
    await endJudging(later.battle_id);
    await arena.refresh();
    expect(await exported()).toEqual([later.battle_id]);
    expect(
      (await arena.t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/markdown' } })).body,
    ).not.toContain('No vote counts yet');
  });

  it('hands a judge in probation only pairs a trusted judge has, so its votes are compared', async () => {
    for (let i = 0; i < 3; i++) await arena.dispatch();
    const newcomer = await register(arena.t.app, '203.0.113.20');
    const handed: number[] = [];
    for (;;) {
      const res = await next(newcomer);
      if (res.statusCode === 204) break;
      handed.push(res.json().battle_id);
      expect((await vote(newcomer, res.json().battle_id, 'tie')).statusCode).toBe(200);
    }
    const [outside] = await arena.sql<{ n: number }>(
      `select count(*)::int as n from battles b join arena_pairs p on p.session_low_id = b.pair_low and p.session_high_id = b.pair_high
       where b.id = any(?::int[]) and not exists (
         select 1 from battles t join judge_standings s on s.judge_id = t.judge_id and s.trusted_at is not null
         where t.pair_low = b.pair_low and t.pair_high = b.pair_high and t.id < b.id)`,
      [`{${handed.join(',')}}`],
    );
    expect(outside!.n).toBe(0);
    // A trusted judge takes a fresh pair: the newcomer may follow it there.
    const seed = await registerJudge(arena.t, '203.0.113.21');
    const fresh = await next(seed);
    expect(fresh.statusCode).toBe(200);
    const followed = await next(newcomer);
    expect(followed.statusCode).toBe(200);
    const [pairs] = await arena.sql<{ same: boolean }>(
      `select x.pair_low = y.pair_low and x.pair_high = y.pair_high as same from battles x, battles y where x.id = ? and y.id = ?`,
      [fresh.json().battle_id, followed.json().battle_id],
    );
    expect(pairs!.same).toBe(true);
    // On /judge, the judge reads where it stands.
    expect((await vote(newcomer, followed.json().battle_id, 'a')).json().judge.note).toMatch(/^You are in probation/);
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
    const pair = await somePair(0, 1);
    // 20 pairs the seed judged: `a` on each, except a tie on the last two. The old judge agrees on
    // 18 and calls the two the seed tied `b` (half each); the contrary one picks `b` throughout.
    let pairNumber = 0;
    const judged = async (judgeId: number, winner: (k: number) => string) => {
      for (let k = 0; k < 20; k++)
        await insertVote(pair, {
          judgeId,
          pairNumber: 7_000_000 + k,
          winner: winner(k),
          judgedAs: null,
          votedAgo: '3 days',
        });
      pairNumber += 20;
    };
    await judged(seed.userId, (k) => (k >= 18 ? 'tie' : 'a'));
    await judged(old.userId, (k) => (k >= 18 ? 'b' : 'a'));
    await judged(young.userId, () => 'a');
    await judged(contrary.userId, () => 'b');
    expect(pairNumber).toBe(80);
    await arena.refresh();
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
    await arena.refresh();
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
    await arena.refresh();
    expect(await exported()).not.toContain(battle.battle_id);

    // A voided judge's later votes move nothing and count nowhere. It judges like a judge in
    // probation, on pairs a trusted judge has: another trusted judge opens one.
    expect((await next(await registerJudge(arena.t, '203.0.113.7'))).statusCode).toBe(200);
    const later = (await next(judge)).json();
    const after = (await vote(judge, later.battle_id, 'a')).json();
    expect([after.a.delta, after.b.delta, after.judge.elo_weight]).toEqual([0, 0, 0]);
    expect(after.judge.note).toBe('An operator voided your votes: they move no rating and count on no board.');
  });

  it("holds the rule-established judges' votes on an agent they lean on, Elo taken back, until an operator releases or voids them", async () => {
    const seed = await registerJudge(arena.t, '203.0.113.30');
    // Five judges on five addresses, nine votes each: too few for any one judge's own test (10 a cell).
    const cohort: Registered[] = [];
    for (let k = 0; k < 5; k++) cohort.push(await register(arena.t.app, `203.0.113.${31 + k}`));
    await arena.sql(
      `insert into judge_standings (judge_id, established_at) select id, now() from unnest(?::int[]) as j(id)`,
      [`{${cohort.map((j) => j.userId).join(',')}}`],
    );
    // The two agents the judges above voted on, the other way round: with them, the cohort
    // outnumbered the trusted judge and could make it an outlier (the next test holds that off).
    const pair = await somePair(1, 0);
    // Out of judging, the votes cast before: the refresh publishes them.
    await arena.sql(`update sessions set judging_until = now() where id in (?, ?) and judging_until > now()`, [
      pair.a,
      pair.b,
    ]);
    let pairNumber = 8_000_000;
    /** Votes on the pair; the cohort's move Elo by 10 each, recorded as a vote does. */
    const cast = async (judgeId: number, judgedAs: string, winner: (k: number) => string, count: number) => {
      for (let k = 0; k < count; k++) {
        const battle = await insertVote(pair, { judgeId, pairNumber, winner: winner(k), judgedAs, votedAgo: '1 hour' });
        pairNumber++;
        if (judgedAs !== 'established') continue;
        await arena.sql(
          `insert into rating_changes (agent_id, battle_id, before, after, kind, created_at)
           values (?, ?, 1500, 1490, 'vote', now()), (?, ?, 1500, 1510, 'vote', now())`,
          [pair.agent_a, battle!.id, pair.agent_b, battle!.id],
        );
        await arena.sql(`update agents set elo = elo + case when id = ? then -10 else 10 end where id in (?, ?)`, [
          pair.agent_a,
          pair.agent_a,
          pair.agent_b,
        ]);
      }
    };
    const elo = async () =>
      (
        await arena.sql<{ elo: number }>(`select elo from agents where id in (?, ?) order by id = ? desc`, [
          pair.agent_a,
          pair.agent_b,
          pair.agent_a,
        ])
      ).map((r) => r.elo);
    // The trusted judge finds the two even; the cohort gives agent b every vote.
    await cast(seed.userId, 'trusted', (k) => (k % 2 === 0 ? 'a' : 'b'), 100);
    const before = await elo();
    for (const judge of cohort) await cast(judge.userId, 'established', () => 'b', 9);
    expect(await elo()).toEqual([before[0]! - 450, before[1]! + 450]);
    await arena.refresh();

    const holds = await arena.sql<{ id: number; agent_id: number; direction: string; decision: string | null }>(
      `select id, agent_id, direction, decision from vote_holds order by id`,
    );
    expect(holds).toEqual(
      expect.arrayContaining([expect.objectContaining({ agent_id: pair.agent_b, direction: 'for', decision: null })]),
    );
    const [held] = await arena.sql<{ n: number; reasons: string[] }>(
      `select count(*)::int as n, array_agg(distinct x.reason) as reasons from battles b join uncounted_votes x on x.battle_id = b.id
       where b.judge_id = any(?::int[])`,
      [`{${cohort.map((j) => j.userId).join(',')}}`],
    );
    expect(held).toEqual({ n: 45, reasons: ['held'] });
    // Neither Elo nor the tier stays bought: each change is taken back as a public `hold` row.
    expect(await elo()).toEqual(before);
    const history = (await arena.t.app.inject({ method: 'GET', url: `/api/agents/${pair.agent_b}/ratings` })).json();
    expect(history.history.filter((h: { kind: string }) => h.kind === 'hold')).toHaveLength(45);
    const list: string[] = [];
    await listJudges(arena.t.orm.em.fork(), (line) => list.push(line));
    expect(list.join('\n')).toMatch(/hold \d+\theld\tagent \d+ agent-\d\t45 votes held/);
    expect(holds.every((h) => h.decision === null)).toBe(true);

    // Released: they count from the next refresh, the Elo given back; the test leaves them out from then on.
    // (The cohort leaned for agent b and so against agent a: a hold each, the votes under one of them.)
    const decide = async (ids: number[], decision: 'released' | 'voided') => {
      let votes = 0;
      let corrected = 0;
      for (const id of ids) {
        const done = await decideHoldNumbered(arena.t.orm.em.fork(), id, decision, 'reviewed');
        expect(done.holdId).toBe(id);
        votes += done.votes;
        corrected += done.corrected;
      }
      return { votes, corrected };
    };
    expect(
      await decide(
        holds.map((h) => h.id),
        'released',
      ),
    ).toEqual({ votes: 45, corrected: 90 });
    await expect(decideHoldNumbered(arena.t.orm.em.fork(), holds[0]!.id, 'voided', 'twice')).rejects.toThrow(
      `no undecided hold ${holds[0]!.id} (see arena judges)`,
    );
    expect(await elo()).toEqual([before[0]! - 450, before[1]! + 450]);
    await arena.refresh();
    const cohortVotes = await arena.sql<{ id: number }>(`select id from battles where hold_id = any(?::int[])`, [
      `{${holds.map((h) => h.id).join(',')}}`,
    ]);
    expect(cohortVotes).toHaveLength(45);
    expect(await exported()).toEqual(expect.arrayContaining(cohortVotes.map((v) => v.id)));
    const [stillHeld] = await arena.sql<{ n: number }>(
      `select count(*)::int as n from uncounted_votes x join battles b on b.id = x.battle_id where b.judge_id = any(?::int[])`,
      [`{${cohort.map((j) => j.userId).join(',')}}`],
    );
    expect(stillHeld!.n).toBe(0);

    // The cohort leans again: a new hold, and this time the operator voids the votes (their Elo stays taken back).
    for (const judge of cohort) await cast(judge.userId, 'established', () => 'b', 9);
    await arena.refresh();
    const again = await arena.sql<{ id: number }>(`select id from vote_holds where decision is null order by id`);
    expect(again.length).toBeGreaterThan(0);
    expect(
      await decide(
        again.map((h) => h.id),
        'voided',
      ),
    ).toEqual({ votes: 45, corrected: 0 });
    expect(await elo()).toEqual([before[0]! - 450, before[1]! + 450]);
    await arena.refresh();
    const [voided] = await arena.sql<{ n: number }>(
      `select count(*)::int as n from uncounted_votes x join battles b on b.id = x.battle_id
       where b.hold_id = any(?::int[]) and x.reason = 'voided'`,
      [`{${again.map((h) => h.id).join(',')}}`],
    );
    expect(voided!.n).toBe(45);
  });
  it('keeps a trusted judge the reference however many accounts established by the rule contradict it', async () => {
    // The patient owner's accounts, each on a network of its own, outnumber the one trusted judge
    // on their agent's pairs twelve to one and vote for it throughout; the trusted judge finds the
    // two agents even. Measured against everyone's verdicts, the trusted judge was the outlier: the
    // reference lost it, and nothing was held.
    const trusted = await registerJudge(arena.t, '192.0.2.1');
    const owned: Registered[] = [];
    for (let k = 0; k < 12; k++) owned.push(await register(arena.t.app, `198.51.${k}.7`));
    await arena.sql(
      `insert into judge_standings (judge_id, established_at) select id, now() from unnest(?::int[]) as j(id)`,
      [`{${owned.map((j) => j.userId).join(',')}}`],
    );
    const pair = await somePair(1, 2);
    await arena.sql(`update sessions set judging_until = now() where id in (?, ?) and judging_until > now()`, [
      pair.a,
      pair.b,
    ]);
    let pairNumber = 9_000_000;
    for (let k = 0; k < 20; k++)
      await insertVote(pair, {
        judgeId: trusted.userId,
        pairNumber: pairNumber++,
        winner: k % 2 === 0 ? 'a' : 'b',
        judgedAs: 'trusted',
        votedAgo: '1 hour',
      });
    for (const judge of owned)
      for (let k = 0; k < 10; k++)
        await insertVote(pair, {
          judgeId: judge.userId,
          pairNumber: pairNumber++,
          winner: 'b',
          judgedAs: 'established',
          votedAgo: '1 hour',
        });
    await arena.refresh();

    const flagged = await arena.sql(`select judge_id from vote_flags where judge_id = ?`, [trusted.userId]);
    expect(flagged).toEqual([]);
    const holds = await arena.sql<{ agent_id: number; direction: string }>(
      `select agent_id, direction from vote_holds where decision is null order by id`,
    );
    expect(holds).toEqual(expect.arrayContaining([{ agent_id: pair.agent_b, direction: 'for' }]));
    const [held] = await arena.sql<{ n: number }>(
      `select count(*)::int as n from battles where judge_id = any(?::int[]) and hold_id is not null`,
      [`{${owned.map((j) => j.userId).join(',')}}`],
    );
    expect(held!.n).toBe(120);
  });
});
