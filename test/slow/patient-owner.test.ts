/**
 * The patient owner's attack, through the API against a simulated honest population: seven agents of
 * graded quality (the owner's is the weakest), twelve judges the operator trusts, six honest
 * newcomers, and twelve accounts of the owner, one per address and registered ahead. The week of age
 * is compressed by the settings (no age, five compared votes), so the owner's accounts reach
 * establishment within minutes. In probation they vote like careful honest judges and favour the
 * owner's agent only twice each (a capped cheat, to pass for honest); once established, every pair
 * with its agent (found by the exact text of its answers) is its win, and they start live battles,
 * voting for the agent when it is in one and a tie otherwise.
 *
 * What must hold: the owner's agent stays below the truly best agent on the board and is not first
 * by Elo, at most 20% of the owner's votes on its pairs are exported, accounts not established move
 * its Elo by nothing, and live votes move no board.
 *
 * In the slow set. In `npm test`, test/arena/bought-votes.part.ts runs the owner's vote buying
 * against the same kind of simulated population in 10 rounds, without first waiting through
 * probation, and test/arena/judge-standing.part.ts checks establishment and probation themselves.
 */
import { fitLeaderboard } from '../../domain/ratings/bradley-terry';
import { mulberry32 } from '../../domain/ratings/random';
import { refreshLeaderboard } from '../../workflows';
import { register, trustJudges, type Registered } from '../support/test-app';
import { startArena, type Arena } from '../arena/support';

/** True strength on the Elo scale: agent-0 the best, agent-6 (the owner's) the weakest. */
const TRUTH = [1700, 1640, 1590, 1540, 1490, 1440, 1380];
const TARGET = 6;
const PROBATION_ROUNDS = 10;
const ESTABLISHED_ROUNDS = 14;
/** How often an owner's account favours the owner's agent while in probation. */
const PROBATION_CHEATS = 2;

let arena: Arena;
let trusted: Registered[];
let newcomers: Registered[];
let owners: Registered[];
const random = mulberry32(20261128);
/** Per account: judge/next answered 204 ("nothing to judge") and asked at all. */
const tries = new Map<number, { empty: number; asked: number }>();
const cheats = new Map<number, number>();
/** Per honest newcomer, the votes it had cast when a refresh first found it established. */
const votesUntilEstablished = new Map<number, number>();

let refreshes = 0;
const refresh = () =>
  arena.client.workflow.execute(refreshLeaderboard, {
    taskQueue: arena.t.config.taskQueue,
    workflowId: `refresh-patient-${++refreshes}-${Date.now()}`,
  });

beforeAll(async () => {
  arena = await startArena(7, {
    ARENA_MIN_GAP_SECONDS: '0',
    ARENA_JUDGE_ESTABLISH_DAYS: '0',
    ARENA_JUDGE_ESTABLISH_VOTES: '5',
    ARENA_BATTLE_RATE_LIMIT: '1000',
  });
  trusted = [];
  for (let j = 0; j < 12; j++) trusted.push(await register(arena.t.app, `203.0.113.${100 + j}`));
  await trustJudges(arena.t, ...trusted);
  newcomers = [];
  for (let j = 0; j < 6; j++) newcomers.push(await register(arena.t.app, `192.0.2.${10 + j}`));
  owners = [];
  for (let j = 0; j < 12; j++) owners.push(await register(arena.t.app, `198.51.100.${10 + j}`));
  for (let round = 0; round < PROBATION_ROUNDS; round++) {
    await arena.dispatch();
    await judgeEverything();
    await refresh();
    await noteEstablished();
  }
  for (let round = 0; round < ESTABLISHED_ROUNDS; round++) {
    await arena.dispatch();
    await startLiveBattles();
    await judgeEverything();
    await refresh();
    await noteEstablished();
  }
  // Every answer's judging window passes; the refresh publishes, reviews the judges and fits.
  await arena.sql(`update sessions set judging_until = now() where judging_until > now()`);
  await refresh();
}, 900_000);
afterAll(() => arena.close());

const agentIndex = (response: string | null) => Number(/agent-(\d)$/.exec(response ?? '')?.[1] ?? -1);
const inject = (who: Registered, method: 'GET' | 'POST', url: string, payload?: object) =>
  arena.t.app.inject({ method, url, headers: who.auth, remoteAddress: who.ip, ...(payload ? { payload } : {}) });
const idsOf = (judges: Registered[]) => `{${judges.map((j) => j.userId).join(',')}}`;

/** An honest verdict: the better answer wins as often as the true ratings say, with a tie now and then. */
function honestVerdict(a: number, b: number): string {
  if (random() < 0.1) return 'tie';
  const p = 1 / (1 + 10 ** ((TRUTH[b]! - TRUTH[a]!) / 400));
  return random() < p ? 'a' : 'b';
}

async function isEstablished(who: Registered): Promise<boolean> {
  const [row] = await arena.sql<{ established: boolean }>(
    `select established_at is not null as established from judge_standings where judge_id = ?`,
    [who.userId],
  );
  return row?.established ?? false;
}

/** The owner's verdict: its agent wins whenever it is there (in probation only up to the cap); otherwise honest. */
async function ownersVerdict(who: Registered, a: number, b: number): Promise<string> {
  if (a !== TARGET && b !== TARGET) return honestVerdict(a, b);
  if (!(await isEstablished(who))) {
    const used = cheats.get(who.userId) ?? 0;
    if (used >= PROBATION_CHEATS) return honestVerdict(a, b);
    cheats.set(who.userId, used + 1);
  }
  return a === TARGET ? 'a' : 'b';
}

async function noteEstablished(): Promise<void> {
  for (const who of newcomers) {
    if (votesUntilEstablished.has(who.userId) || !(await isEstablished(who))) continue;
    const [row] = await arena.sql<{ n: number }>(
      `select count(*)::int as n from battles where judge_id = ? and status = 'voted'`,
      [who.userId],
    );
    votesUntilEstablished.set(who.userId, row!.n);
  }
}

/** Judges in a random order each take one pair and vote, pass after pass, until a pass hands out nothing. */
async function judgeEverything(): Promise<void> {
  const everyone = [
    ...trusted.map((j) => ({ j, owner: false })),
    ...newcomers.map((j) => ({ j, owner: false })),
    ...owners.map((j) => ({ j, owner: true })),
  ];
  for (let handed = 1; handed > 0;) {
    handed = 0;
    everyone.sort(() => random() - 0.5);
    for (const { j, owner } of everyone) {
      const res = await inject(j, 'GET', '/api/judge/next');
      const count = tries.get(j.userId) ?? { empty: 0, asked: 0 };
      count.asked++;
      if (res.statusCode === 204) count.empty++;
      tries.set(j.userId, count);
      if (res.statusCode !== 200) continue;
      handed++;
      const battle = res.json();
      const [a, b] = [agentIndex(battle.a.response), agentIndex(battle.b.response)];
      const verdict = owner ? await ownersVerdict(j, a, b) : honestVerdict(a, b);
      await inject(j, 'POST', `/api/judge/${battle.battle_id}/vote`, { winner: verdict });
    }
  }
}

/** Each owner's account starts two live battles a round and votes for the agent when it is there, a tie otherwise. */
async function startLiveBattles(): Promise<void> {
  for (const account of owners) {
    for (let k = 0; k < 2; k++) {
      const started = await inject(account, 'POST', '/api/battles', {
        prompt: `Say something, ${k}.`,
        deadline_seconds: 30,
      });
      if (started.statusCode !== 202) continue;
      const id = started.json().battle_id;
      if ((await arena.client.workflow.getHandle(`battle-${id}`).result()) !== 'open') continue;
      const battle = (await inject(account, 'GET', `/api/battles/${id}`)).json();
      const [a, b] = [agentIndex(battle.a.response), agentIndex(battle.b.response)];
      const winner = a === TARGET ? 'a' : b === TARGET ? 'b' : 'tie';
      await inject(account, 'POST', `/api/judge/${id}/vote`, { winner });
    }
  }
}

const exportedIds = async () =>
  new Set(
    (await arena.t.app.inject({ method: 'GET', url: '/api/votes' })).body
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).battle_id as number),
  );

describe("a patient owner's accounts, one per address, established by the rule", () => {
  it('leave the owner’s agent below the best agent on the board and not first by Elo', async () => {
    const board: Array<{ agent_id: number; bt_rating: number; elo: number }> = (
      await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })
    ).json();
    expect(board).toHaveLength(7);
    const votes = await arena.sql<{ a: number; b: number; outcome: 'a' | 'b' | 'tie' | 'both_bad' }>(
      `select b.agent_a_id as a, b.agent_b_id as b, b.winner as outcome from battles b
       where b.status = 'voted' and not b.live and b.judge_id = any(?::int[]) order by b.id`,
      [idsOf(trusted)],
    );
    const trustedOrder = fitLeaderboard(votes).map((e) => e.agentId);
    const liveOrder = [...board].sort((x, y) => y.bt_rating - x.bt_rating).map((r) => r.agent_id);
    const target = arena.agents[TARGET]!.id;
    const best = arena.agents[0]!.id;
    const row = (id: number) => board.find((r) => r.agent_id === id)!;
    const eloOrder = [...board].sort((x, y) => y.elo - x.elo).map((r) => r.agent_id);
    console.log(
      `the owner's agent: place ${liveOrder.indexOf(target) + 1} of 7 on the board ` +
        `(${trustedOrder.indexOf(target) + 1} by the trusted judges' votes alone), place ${eloOrder.indexOf(target) + 1} by Elo; ` +
        `BT ${row(target).bt_rating.toFixed(0)} against the best's ${row(best).bt_rating.toFixed(0)}, Elo ${row(target).elo} against ${row(best).elo}`,
    );
    const moves = await arena.sql<{ kind: string; judged_as: string; moved: number }>(
      `select c.kind, coalesce(b.judged_as, '-') as judged_as, sum(c.after - c.before)::int as moved
       from rating_changes c join battles b on b.id = c.battle_id where c.agent_id = ? group by 1, 2 order by 1, 2`,
      [target],
    );
    const holds = await arena.sql<{ agent_id: number; direction: string; votes: number; p_value: number }>(
      `select h.agent_id, h.direction, (select count(*)::int from battles b where b.hold_id = h.id) as votes, h.p_value
       from vote_holds h order by h.id`,
    );
    console.log(
      `its Elo moves: ${moves.map((m) => `${m.kind} by ${m.judged_as} ${m.moved}`).join(', ')}; holds: ` +
        holds
          .map((h) => `agent ${h.agent_id} ${h.direction} (${h.votes} votes, p = ${h.p_value.toExponential(1)})`)
          .join(', '),
    );
    expect(row(target).bt_rating).toBeLessThan(row(best).bt_rating);
    expect(eloOrder[0]).not.toBe(target);
    expect(row(target).elo).toBeLessThan(row(best).elo);
  });

  it("export at most 20% of the owner's votes on its agent's pairs", async () => {
    const exported = await exportedIds();
    const onTarget = await arena.sql<{ id: number; live: boolean }>(
      `select id, live from battles where status = 'voted' and judge_id = any(?::int[]) and ? in (agent_a_id, agent_b_id)`,
      [idsOf(owners), arena.agents[TARGET]!.id],
    );
    const pool = onTarget.filter((b) => !b.live);
    expect(pool.length).toBeGreaterThan(20);
    const inExport = onTarget.filter((b) => exported.has(b.id)).length;
    console.log(
      `the owner's votes on its agent's pairs: ${onTarget.length} (${pool.length} pool, ${onTarget.length - pool.length} live), ${inExport} exported`,
    );
    expect(inExport / onTarget.length).toBeLessThanOrEqual(0.2);
  });

  it('gives the owner’s agent no Elo from accounts that were not established, and none from live battles', async () => {
    const [fromNew] = await arena.sql<{ moved: number; votes: number }>(
      `select coalesce(sum(abs(c.after - c.before)), 0)::int as moved, count(*)::int as votes
       from rating_changes c join battles b on b.id = c.battle_id
       where c.kind = 'vote' and c.agent_id = ? and (b.elo_weight is distinct from 1 or b.live)`,
      [arena.agents[TARGET]!.id],
    );
    expect(fromNew!.votes).toBeGreaterThan(0);
    expect(fromNew!.moved).toBe(0);
    const [live] = await arena.sql<{ moved: number; votes: number }>(
      `select coalesce(sum(abs(c.after - c.before)), 0)::int as moved, count(distinct b.id)::int as votes
       from rating_changes c join battles b on b.id = c.battle_id where b.live and c.kind = 'vote'`,
    );
    expect(live!.votes).toBeGreaterThan(5);
    expect(live!.moved).toBe(0);
    const exported = await exportedIds();
    const liveVotes = await arena.sql<{ id: number }>(`select id from battles where live and status = 'voted'`);
    expect(liveVotes.filter((b) => exported.has(b.id))).toEqual([]);
    const categoryLive = await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard?category=live' });
    expect(categoryLive.statusCode === 400 || categoryLive.json().length === 0).toBe(true);
  });

  it('lets honest newcomers establish in about the vote count, and keeps trusted judges judging', async () => {
    const established = newcomers.filter((n) => votesUntilEstablished.has(n.userId));
    const counts = established.map((n) => votesUntilEstablished.get(n.userId)!);
    const trustedTries = trusted.map((j) => tries.get(j.userId) ?? { empty: 0, asked: 0 });
    const empty = trustedTries.reduce((s, t) => s + t.empty, 0);
    const asked = trustedTries.reduce((s, t) => s + t.asked, 0);
    const [trustedShare] = await arena.sql<{ share: number }>(
      `select (count(*) filter (where judge_id = any(?::int[])))::float8 / greatest(count(*), 1) as share
       from battles where status = 'voted' and not live`,
      [idsOf(trusted)],
    );
    console.log(
      `honest newcomers established: ${established.length} of ${newcomers.length}, after ${counts.join(', ')} votes; ` +
        `trusted judges' "nothing to judge": ${empty} of ${asked} tries (${((100 * empty) / Math.max(1, asked)).toFixed(0)}% ` +
        `— each judging pass ends on one); their share of pool votes ${(100 * trustedShare!.share).toFixed(0)}%`,
    );
    const waiting = await arena.sql<{ compared_votes: number; agreement: number | null; contrary_agents: number }>(
      `select compared_votes, agreement, contrary_agents from judge_standings
       where judge_id = any(?::int[]) and established_at is null`,
      [idsOf(newcomers)],
    );
    console.log(
      `honest newcomers not established: ${waiting.map((w) => `${w.compared_votes} compared, agreement ${w.agreement?.toFixed(2)}, ${w.contrary_agents} contrary`).join('; ') || 'none'}`,
    );
    // Agreement with the trusted judges on close pairs is near a half even for honest judges (the
    // threshold), so a newcomer may wait longer than the simulation lasts; most do not.
    expect(established.length).toBeGreaterThanOrEqual(3);
    // About the vote count (five compared votes), not twice as many: on average within half again
    // (a refresh comes once a round, after several votes, and agreement is a sample).
    const mean = counts.reduce((sum, n) => sum + n, 0) / counts.length;
    expect(mean).toBeLessThanOrEqual(7.5);
  });
});
