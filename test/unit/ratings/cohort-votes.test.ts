/**
 * The second round of the concentration test (domain/ratings/concentrated-votes.ts): judges
 * established by the rule are tested as one cohort per agent against the trusted judges' fit, with a
 * margin, whatever their addresses; and a judge in probation is tested on every agent it voted on
 * enough (the per-agent rule of establishment, a 1% rate per judge).
 */
import { COHORT_MARGIN, CONTRARY_ALPHA, CONTRARY_MIN_VOTES } from '../../../domain/judges';
import { findConcentratedVotes, type GroupedVote } from '../../../domain/ratings/concentrated-votes';
import type { VoteOutcome } from '../../../domain/ratings/elo';
import { mulberry32, standardNormal } from '../../../domain/ratings/random';
import { randomPair } from './synthetic-votes';

interface Judge {
  id: number;
  sharpness: number;
  drawRate: number;
  /** Elo points this judge adds to one agent's true rating when it judges it (0 for none). */
  bias: { agent: number; points: number } | null;
}

function verdict(random: () => number, judge: Judge, a: number, b: number, ratings: readonly number[]): VoteOutcome {
  if (random() < judge.drawRate) return random() < 0.5 ? 'tie' : 'both_bad';
  const shift = (id: number) => (judge.bias?.agent === id ? judge.bias.points : 0);
  const ra = ratings[a - 1]! + shift(a);
  const rb = ratings[b - 1]! + shift(b);
  const p = 1 / (1 + 10 ** ((judge.sharpness * (rb - ra)) / 400));
  return random() < p ? 'a' : 'b';
}

/** `count` judges from id `first`, each with `votes` random votes; every one on an address of its own. */
function judgesVotes(
  random: () => number,
  ratings: readonly number[],
  first: number,
  count: number,
  votes: number,
  options: { cohort: boolean; bias?: Judge['bias'] },
): GroupedVote[] {
  const out: GroupedVote[] = [];
  for (let k = 0; k < count; k++) {
    const judge: Judge = {
      id: first + k,
      sharpness: 0.5 + 1.2 * random(),
      drawRate: 0.3 * random(),
      bias: options.bias ?? null,
    };
    for (let v = 0; v < votes; v++) {
      const [a, b] = randomPair(random, ratings.length);
      out.push({
        judgeId: judge.id,
        cluster: judge.id,
        network: `203.0.${Math.floor(judge.id / 250)}.${judge.id % 250}`,
        cohort: options.cohort,
        a,
        b,
        outcome: verdict(random, judge, a, b, ratings),
      });
    }
  }
  return out;
}

const asReference = (votes: readonly GroupedVote[]) => votes.map(({ a, b, outcome }) => ({ a, b, outcome }));
const cohortFlags = (votes: readonly GroupedVote[], reference: readonly GroupedVote[]) =>
  findConcentratedVotes(votes, asReference(reference), {
    margins: { cohort: COHORT_MARGIN },
    ownFamilies: ['cohort'],
  }).flags.filter((f) => f.group.kind === 'cohort');

function ratingsOf(seed: number, agents = 7): number[] {
  const normal = standardNormal(mulberry32(seed ^ 0x9e3779b9));
  return Array.from({ length: agents }, () => 1500 + 150 * normal());
}

describe('the rule-established cohort, tested per agent against the trusted judges', () => {
  it('holds no honest cohort in at least 99% of 300 simulated arenas, one in three leaning +60 Elo to the best agent', () => {
    let held = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const random = mulberry32(seed);
      const ratings = ratingsOf(seed);
      const best = ratings.indexOf(Math.max(...ratings)) + 1;
      const trusted = judgesVotes(random, ratings, 1, 12, 60, { cohort: false });
      const bias = seed % 3 === 0 ? { agent: best, points: 60 } : null;
      const cohort = judgesVotes(random, ratings, 100, 30, 40, { cohort: true, bias });
      if (cohortFlags([...trusted, ...cohort], trusted).length > 0) held++;
    }
    expect(held).toBeLessThanOrEqual(3);
  });

  it("holds a patient owner's accounts, one per address, that vote honestly except for their agent", () => {
    const random = mulberry32(42);
    const ratings = [1700, 1640, 1590, 1540, 1490, 1440, 1380];
    const trusted = judgesVotes(random, ratings, 1, 12, 40, { cohort: false });
    const honest = judgesVotes(random, ratings, 100, 6, 40, { cohort: true });
    // Twelve accounts on twelve addresses: no cluster, no shared address, too few votes each on agent 7.
    const bought = judgesVotes(random, ratings, 200, 12, 30, { cohort: true }).map((v) =>
      v.a === 7 ? { ...v, outcome: 'a' as const } : v.b === 7 ? { ...v, outcome: 'b' as const } : v,
    );
    const all = [...trusted, ...honest, ...bought];
    const flags = cohortFlags(all, trusted);
    expect(flags.map((f) => [f.agentId, f.direction])).toContainEqual([7, 'for']);
    // The same accounts pass every per-judge, per-cluster and per-address test: only the cohort catches them.
    const others = findConcentratedVotes(all, asReference(trusted)).flags.filter((f) => f.group.kind !== 'cohort');
    expect(others.filter((f) => f.group.kind === 'judge' && f.group.judgeId >= 200)).toEqual([]);
  });

  it('tests the cohort only on the margin: a lean below it is never held, however many votes show it', () => {
    const random = mulberry32(7);
    const ratings = [1500, 1500, 1500, 1500];
    const trusted = judgesVotes(random, ratings, 1, 10, 200, { cohort: false });
    // A 40-point lean: about 5.7 points in a hundred, within the 10-point margin, over 12,000 votes.
    const cohort = judgesVotes(random, ratings, 100, 60, 200, { cohort: true, bias: { agent: 1, points: 40 } });
    expect(cohortFlags([...trusted, ...cohort], trusted)).toEqual([]);
    // Without the margin the same lean is significant.
    const unmargined = findConcentratedVotes([...trusted, ...cohort], asReference(trusted), {
      ownFamilies: ['cohort'],
    }).flags;
    expect(unmargined.some((f) => f.group.kind === 'cohort' && f.agentId === 1)).toBe(true);
  });
});

describe('establishment on every agent: a judge in probation tested on each agent it voted on enough', () => {
  const contrary = (votes: readonly GroupedVote[], reference: readonly GroupedVote[]) =>
    findConcentratedVotes(
      votes.map((v) => ({ ...v, cluster: -v.judgeId, network: null, cohort: false })),
      asReference(reference),
      { minVotes: CONTRARY_MIN_VOTES, alpha: CONTRARY_ALPHA, family: 'group' },
    ).flags;

  it('blocks no more than about 1% of honest judges in probation', () => {
    let judges = 0;
    const blocked = new Set<number>();
    for (let seed = 1; seed <= 40; seed++) {
      const random = mulberry32(1000 + seed);
      const ratings = ratingsOf(seed);
      const trusted = judgesVotes(random, ratings, 1, 12, 60, { cohort: false });
      const probation = judgesVotes(random, ratings, 100, 25, 30, { cohort: false });
      judges += 25;
      for (const flag of contrary(probation, trusted))
        if (flag.group.kind === 'judge') blocked.add(seed * 1000 + flag.group.judgeId);
    }
    expect(judges).toBe(1000);
    expect(blocked.size).toBeLessThanOrEqual(15);
  });

  it('blocks a judge that votes for one agent every time, however well it agrees elsewhere', () => {
    const random = mulberry32(9);
    const ratings = [1700, 1640, 1590, 1540, 1490, 1440, 1380];
    const trusted = judgesVotes(random, ratings, 1, 12, 40, { cohort: false });
    // 40 votes, about 11 with agent 7: every one of them its win.
    const judge = judgesVotes(random, ratings, 500, 1, 40, { cohort: false }).map((v) =>
      v.a === 7 ? { ...v, outcome: 'a' as const } : v.b === 7 ? { ...v, outcome: 'b' as const } : v,
    );
    const flags = contrary(judge, trusted);
    expect(flags.map((f) => [f.group, f.agentId, f.direction])).toContainEqual([
      { kind: 'judge', judgeId: 500 },
      7,
      'for',
    ]);
  });
});
