/**
 * The attack an arena's board must withstand: an agent's owner, who knows its answers word for
 * word, buys votes with accounts of their own. Run through the API against a simulated honest
 * population: seven agents of graded quality (the owner's is the weakest), twelve honest judges on
 * addresses of their own (the operator's seed, trusted), nineteen of the owner's accounts
 * registered from one address that vote for its agent whenever it is in the pair and honestly
 * otherwise, and two more from a second address that start live battles and vote only on those
 * that include it (which count nowhere). Establishment is made easy (no age, five agreeing votes),
 * so the owner's accounts may get past it and the concentration tests have to catch them.
 */
import { fitLeaderboard } from '../../domain/ratings/bradley-terry';
import { eloUpdate, INITIAL_ELO } from '../../domain/ratings/elo';
import { mulberry32 } from '../../domain/ratings/random';
import { register, trustJudges, type Registered } from '../support/test-app';
import { startArena, type Arena } from './support';

/** True strength on the Elo scale: agent-0 the best, agent-6 (the owner's) the weakest. */
const TRUTH = [1700, 1640, 1590, 1540, 1490, 1440, 1380];
const TARGET = 6;
const OWNER_ADDRESS = '198.51.100.66';
const LIVE_ADDRESS = '198.51.100.77';
const ROUNDS = 10;
const VOTES_PER_ROUND = 24;

let arena: Arena;
let honest: Registered[];
let owners: Registered[];
let live: Registered[];
const random = mulberry32(20261127);
const refusals: Record<string, number> = {};

beforeAll(async () => {
  arena = await startArena(7, {
    ARENA_MIN_GAP_SECONDS: '0',
    ARENA_JUDGE_ESTABLISH_DAYS: '0',
    ARENA_JUDGE_ESTABLISH_VOTES: '5',
  });
  honest = [];
  for (let j = 0; j < 12; j++) honest.push(await register(arena.t.app, `203.0.113.${100 + j}`));
  await trustJudges(arena.t, ...honest);
  owners = [];
  for (let j = 0; j < 19; j++) owners.push(await register(arena.t.app, OWNER_ADDRESS));
  live = [];
  for (let j = 0; j < 2; j++) live.push(await register(arena.t.app, LIVE_ADDRESS));
  for (let round = 0; round < ROUNDS; round++) {
    await arena.dispatch();
    await startLiveBattles();
    await judgeEverything();
  }
  // Every answer's judging window passes; the refresh publishes, reviews the judges and fits.
  await arena.sql(`update sessions set judging_until = now() where judging_until > now()`);
  await arena.refresh();
}, 900_000);
afterAll(() => arena.close());

const agentIndex = (response: string | null) => Number(/agent-(\d)$/.exec(response ?? '')?.[1] ?? -1);
const inject = (who: Registered, method: 'GET' | 'POST', url: string, payload?: object) =>
  arena.t.app.inject({ method, url, headers: who.auth, remoteAddress: who.ip, ...(payload ? { payload } : {}) });
const refused = (status: number) => (refusals[status] = (refusals[status] ?? 0) + 1);

/** An honest verdict: the better answer wins as often as the true ratings say, with a tie now and then. */
function honestVerdict(a: number, b: number): string {
  if (random() < 0.1) return 'tie';
  const p = 1 / (1 + 10 ** ((TRUTH[b]! - TRUTH[a]!) / 400));
  return random() < p ? 'a' : 'b';
}

/** The owner's verdict: its agent wins whenever it is there; otherwise honest, to pass for a judge. */
function ownersVerdict(a: number, b: number): string {
  if (a === TARGET) return 'a';
  if (b === TARGET) return 'b';
  return honestVerdict(a, b);
}

/**
 * Judges in a random order each take one pair and vote, pass after pass, until a pass hands out
 * nothing or the round has its VOTES_PER_ROUND. A judge handed nothing is left out of the later
 * passes: no answer arrives while they judge, so what a judge may take only shrinks. The cap keeps
 * the file's work the same from run to run: which prompts the dispatch draws is random, and some
 * draws leave twice as many pairs to judge as others.
 */
async function judgeEverything(): Promise<void> {
  let everyone = [...honest.map((j) => ({ j, owner: false })), ...owners.map((j) => ({ j, owner: true }))];
  let cast = 0;
  while (everyone.length > 0 && cast < VOTES_PER_ROUND) {
    const judging: typeof everyone = [];
    everyone.sort(() => random() - 0.5);
    for (const judge of everyone) {
      if (cast >= VOTES_PER_ROUND) break;
      const { j, owner } = judge;
      const res = await inject(j, 'GET', '/api/judge/next');
      if (res.statusCode !== 200) continue;
      judging.push(judge);
      const battle = res.json();
      const [a, b] = [agentIndex(battle.a.response), agentIndex(battle.b.response)];
      const verdict = owner ? ownersVerdict(a, b) : honestVerdict(a, b);
      const vote = await inject(j, 'POST', `/api/judge/${battle.battle_id}/vote`, { winner: verdict });
      if (vote.statusCode === 200) cast++;
      else refused(vote.statusCode);
    }
    everyone = judging;
  }
}

/**
 * The live accounts start battles and vote only on those with the owner's agent; refused, they vote a
 * tie on the oldest to go on. Each account's battles come one after another, the accounts side by side.
 */
async function startLiveBattles(): Promise<void> {
  await Promise.all(live.map(startLiveBattlesOf));
}

async function startLiveBattlesOf(account: Registered): Promise<void> {
  for (let k = 0; k < 2; k++) {
    const started = await inject(account, 'POST', '/api/battles', {
      prompt: `Say something, ${k}.`,
      deadline_seconds: 30,
    });
    if (started.statusCode === 409) {
      refused(409);
      const [oldest] = await arena.sql<{ id: number }>(
        `select id from battles where judge_id = ? and live and status = 'open' order by id limit 1`,
        [account.userId],
      );
      if (oldest) await inject(account, 'POST', `/api/judge/${oldest.id}/vote`, { winner: 'tie' });
      continue;
    }
    if (started.statusCode === 429) {
      refused(429); // ARENA_BATTLE_RATE_LIMIT a minute
      continue;
    }
    expect(started.statusCode).toBe(202);
    const id = started.json().battle_id;
    if ((await arena.client.workflow.getHandle(`battle-${id}`).result()) !== 'open') continue;
    const battle = (await inject(account, 'GET', `/api/battles/${id}`)).json();
    const [a, b] = [agentIndex(battle.a.response), agentIndex(battle.b.response)];
    if (a === TARGET || b === TARGET)
      await inject(account, 'POST', `/api/judge/${id}/vote`, { winner: a === TARGET ? 'a' : 'b' });
  }
}

const idsOf = (judges: Registered[]) => `{${judges.map((j) => j.userId).join(',')}}`;

describe("an owner's bought votes", () => {
  it('move the owner’s agent by at most one place on the board, in Bradley-Terry and in Elo, and leave it below the best agent', async () => {
    const board: Array<{ agent_id: number; bt_rating: number; elo: number }> = (
      await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })
    ).json();
    expect(board).toHaveLength(7);
    // The board the honest judges' published votes alone give.
    const votes = await arena.sql<{ a: number; b: number; outcome: 'a' | 'b' | 'tie' | 'both_bad' }>(
      `select b.agent_a_id as a, b.agent_b_id as b, b.winner as outcome from battles b join public_votes v on v.battle_id = b.id
       where b.judge_id = any(?::int[]) order by b.id`,
      [idsOf(honest)],
    );
    const honestOrder = fitLeaderboard(votes).map((e) => e.agentId);
    const liveOrder = [...board].sort((x, y) => y.bt_rating - x.bt_rating).map((r) => r.agent_id);
    const target = arena.agents[TARGET]!.id;
    const best = arena.agents[0]!.id;
    const rating = (id: number) => board.find((r) => r.agent_id === id)!;
    // Elo, too, against the Elo the honest votes alone give, applied in order. Elo moves up to 32
    // points a vote, so a couple of hundred votes leave it noisier than the fit: in one run of seven
    // the honest votes alone put the weakest agent fifth, and the board's Elo put it 11 points above
    // the best.
    const honestElo = new Map(arena.agents.map((a) => [a.id, INITIAL_ELO]));
    for (const v of votes) {
      const moved = eloUpdate(honestElo.get(v.a)!, honestElo.get(v.b)!, v.outcome);
      honestElo.set(v.a, moved.a.after).set(v.b, moved.b.after);
    }
    const placeBy = (elo: (id: number) => number) =>
      arena.agents
        .map((a) => a.id)
        .sort((x, y) => elo(y) - elo(x))
        .indexOf(target);
    const [eloPlace, honestEloPlace] = [placeBy((id) => rating(id).elo), placeBy((id) => honestElo.get(id)!)];
    console.log(
      `the owner's agent: place ${liveOrder.indexOf(target) + 1} of 7 on the board (${honestOrder.indexOf(target) + 1} by the honest votes alone), ` +
        `BT ${rating(target).bt_rating.toFixed(0)} against the best's ${rating(best).bt_rating.toFixed(0)}, ` +
        `Elo ${rating(target).elo} against ${rating(best).elo} (place ${eloPlace + 1}; ${honestEloPlace + 1} by the honest votes alone)`,
    );
    expect(liveOrder.indexOf(target)).toBeGreaterThanOrEqual(honestOrder.indexOf(target) - 1);
    expect(rating(target).bt_rating).toBeLessThan(rating(best).bt_rating);
    expect(eloPlace).toBeGreaterThanOrEqual(honestEloPlace - 1);
  });

  it('end at least 80% out of the export, caught as concentrated on the agent, while the budgets held', async () => {
    const exported = new Set(
      (await arena.t.app.inject({ method: 'GET', url: '/api/votes' })).body
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).battle_id as number),
    );
    const bought = await arena.sql<{ id: number }>(
      `select id from battles where status = 'voted' and judge_id = any(?::int[])`,
      [idsOf([...owners, ...live])],
    );
    expect(bought.length).toBeGreaterThan(20);
    const inExport = bought.filter((b) => exported.has(b.id)).length;
    expect(inExport / bought.length).toBeLessThanOrEqual(0.2);

    const flags = await arena.sql<{
      kind: string;
      cluster: number | null;
      network: string | null;
      agent_id: number;
      direction: string;
    }>(`select kind, cluster, network, agent_id, direction from vote_flags where kind <> 'outlier'`);
    const [ownersCluster] = await arena.sql<{ cluster: number }>(
      `select registration_cluster as cluster from users where id = ?`,
      [owners[0]!.userId],
    );
    expect(flags).toContainEqual(
      expect.objectContaining({
        kind: 'cluster',
        cluster: ownersCluster!.cluster,
        agent_id: arena.agents[TARGET]!.id,
        direction: 'for',
      }),
    );
    // One address, one slot of a pair: the nineteen accounts never voted twice on one pair.
    const [twice] = await arena.sql<{ n: number }>(
      `select count(*)::int as n from (select pair_low, pair_high from battles
         where status = 'voted' and not live and judge_id = any(?::int[]) group by 1, 2 having count(*) > 1) x`,
      [idsOf(owners)],
    );
    expect(twice!.n).toBe(0);
    // The live accounts' votes moved nothing: a live battle is its requester's own comparison.
    const [liveVotes] = await arena.sql<{ votes: number; moved: number }>(
      `select count(distinct b.id)::int as votes, coalesce(sum(abs(c.after - c.before)), 0)::int as moved
       from battles b left join rating_changes c on c.battle_id = b.id where b.live and b.status = 'voted'`,
    );
    expect(liveVotes!.votes).toBeGreaterThan(0);
    expect(liveVotes!.moved).toBe(0);
    const [honestVotes] = await arena.sql<{ n: number }>(
      `select count(*)::int as n from battles where status = 'voted' and judge_id = any(?::int[])`,
      [idsOf(honest)],
    );
    console.log(
      `bought votes: ${bought.length} cast by the owner's ${owners.length + live.length} accounts (honest judges: ` +
        `${honestVotes!.n}), ${inExport} of them in the export; flags: ${flags.map((f) => `${f.kind} ${f.direction} agent ${f.agent_id}`).join(', ')}; ` +
        `refusals: ${JSON.stringify(refusals)}`,
    );
  });

  it("count every honest judge's published vote, and flag no honest judge, address or cluster", async () => {
    const uncounted = await arena.sql<{ n: number }>(
      `select count(*)::int as n from uncounted_votes x join battles b on b.id = x.battle_id where b.judge_id = any(?::int[])`,
      [idsOf(honest)],
    );
    expect(uncounted[0]!.n).toBe(0);
    const honestPublished = await arena.sql<{ n: number }>(
      `select count(*)::int as n from public_votes v join battles b on b.id = v.battle_id where b.judge_id = any(?::int[])`,
      [idsOf(honest)],
    );
    expect(honestPublished[0]!.n).toBeGreaterThan(100);
    const flagged = await arena.sql<{
      kind: string;
      judge_id: number | null;
      cluster: number | null;
      network: string | null;
    }>(`select kind, judge_id, cluster, network from vote_flags`);
    const honestIds = new Set(honest.map((j) => j.userId));
    const honestAddresses = new Set(honest.map((j) => j.ip));
    for (const flag of flagged) {
      expect(honestIds.has(flag.judge_id ?? -1)).toBe(false);
      expect(honestIds.has(flag.cluster ?? -1)).toBe(false);
      expect(honestAddresses.has(flag.network ?? '')).toBe(false);
    }
  });
});
