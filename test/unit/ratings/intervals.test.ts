/** The closed-form intervals: the diagonal approximation against the exact sandwich, the bootstrap beside them, and which records the votes place. */
import { BradleyTerrySolver } from '../../../domain/ratings/bt-fit';
import { ELO_PER_NAT, PRIOR_SD, fitLeaderboard, type BattleVote } from '../../../domain/ratings/bradley-terry';
import {
  comparisonGroups,
  exactIntervals,
  normalQuantile,
  placedAgents,
  rawSpread,
  type Spread,
} from '../../../domain/ratings/intervals';
import { STYLE_FEATURES } from '../../../domain/ratings/style';
import { controlledSpread, fitStyleControlled, styleCovariates } from '../../../domain/ratings/style-control';
import { StyleControlledSolver } from '../../../domain/ratings/style-control-solver';
import { pairTotals, tabulateVotes } from '../../../domain/ratings/vote-table';
import { mulberry32, standardNormal } from '../../../domain/ratings/random';
import { styledArena, syntheticVotes } from './synthetic-votes';

const priorPrecision = (ELO_PER_NAT / PRIOR_SD) ** 2;
const solverOptions = { priorPrecision, tolerance: 1e-6 / ELO_PER_NAT, maxIterations: 100 };

function spreadTruth(agents: number, seed: number): number[] {
  const normal = standardNormal(mulberry32(seed));
  return Array.from({ length: agents }, () => 250 * normal());
}

/** Twenty agents spread over the board, by index. */
const sampled = (n: number) => Array.from({ length: 20 }, (_, k) => Math.floor(((k + 0.5) * n) / 20));

/** The largest relative gap, over the sampled agents, between two spreads' standard deviations. */
function largestGap(approximate: Spread, exact: Spread, agents: readonly number[]): number {
  let largest = 0;
  for (const i of agents)
    for (const kind of ['sandwich', 'model'] as const)
      largest = Math.max(largest, Math.abs(Math.sqrt(approximate[kind][i]! / exact[kind][i]!) - 1));
  return largest;
}

describe('the diagonal approximation, against the exact sandwich on sampled agents', () => {
  it.each([
    ['a sparse board, 28 votes an agent', 2000, 28],
    ['a dense board, 200 votes an agent', 1000, 200],
  ])('raw, %s: within 1%', (_, agents, perAgent) => {
    const table = tabulateVotes(syntheticVotes(spreadTruth(agents, 3), (agents * perAgent) / 2, 4));
    expect(exactIntervals(table.agentIds.length, table.pairs.first.length, 0)).toBe(false);
    const solver = new BradleyTerrySolver(table.pairs, solverOptions);
    const pairs = table.pairs.first.length;
    const [score, games] = [new Float64Array(pairs), new Float64Array(pairs)];
    pairTotals(table, new Int32Array(table.outcomeKeys.length).fill(1), score, games);
    const theta = new Float64Array(table.agentIds.length);
    solver.solve(score, games, theta);
    const agentsSampled = sampled(theta.length);
    const diagonal = rawSpread(table, theta, solver, priorPrecision);
    const exact = rawSpread(table, theta, solver, priorPrecision, { exact: true, agents: agentsSampled });
    expect(largestGap(diagonal, exact, agentsSampled)).toBeLessThan(0.01);
  });

  it.each([
    ['a sparse board, 28 votes an agent', 1500, 28],
    ['a denser board, 100 votes an agent', 1000, 100],
  ])('controlled for style with a length-loving judge, %s: within 1%', (_, agents, perAgent) => {
    const { votes } = styledArena(agents, (agents * perAgent) / 2, 9, { lengthEffect: 2.5, leftEffect: 0.2 });
    const table = tabulateVotes(votes);
    const { x, names } = styleCovariates(table, votes, STYLE_FEATURES);
    const n = table.agentIds.length;
    const K = names.length;
    const solver = new StyleControlledSolver(table, x, K, solverOptions);
    const point = new Float64Array(n + K);
    solver.solve(new Int32Array(table.outcomeKeys.length).fill(1), point);
    solver.linearizeAt(point);
    const agentsSampled = sampled(n);
    const diagonal = controlledSpread(solver, n, K, table, { exact: false });
    const exact = controlledSpread(solver, n, K, table, { exact: true, agents: agentsSampled });
    expect(largestGap(diagonal, exact, agentsSampled)).toBeLessThan(0.01);
  });
});

describe('closed-form intervals', () => {
  const votes = syntheticVotes(spreadTruth(30, 8), 1500, 8);

  it('are about as wide as a bootstrap of 400 resamples, and need no seed', () => {
    const closed = fitLeaderboard(votes);
    const boot = fitLeaderboard(votes, { bootstrap: 400, seed: 3 });
    const ratios = closed
      .map((e) => {
        const other = boot.find((b) => b.agentId === e.agentId)!;
        expect(other.rating).toBe(e.rating);
        return (e.ciHigh - e.ciLow) / (other.ciHigh - other.ciLow);
      })
      .sort((x, y) => x - y);
    const median = ratios[ratios.length >> 1]!;
    expect(median).toBeGreaterThan(0.9);
    expect(median).toBeLessThan(1.2);
    expect(fitLeaderboard(votes, { seed: 1 })).toEqual(fitLeaderboard(votes, { seed: 2 }));
  });

  it('are the same for the controlled board whether exact or not: a board is exact when small', () => {
    const board = fitStyleControlled(styledArena(30, 900, 2).votes, { featureNames: STYLE_FEATURES });
    for (const e of board.entries) expect(e.ciLow < e.rating && e.rating < e.ciHigh).toBe(true);
    for (const c of board.coefficients) expect(c.ciLow < c.estimate && c.estimate < c.ciHigh).toBe(true);
  });

  it('give a feature no vote varies in no interval: not measured, as the bootstrap gave it', () => {
    const votes = styledArena(10, 300, 4).votes.map((v) => ({ ...v, features: [v.features[0]!, 0, 0, 0] }));
    const { coefficients } = fitStyleControlled(votes, { featureNames: STYLE_FEATURES });
    expect(coefficients.slice(1, 4)).toEqual(
      ['headers', 'list_items', 'bold'].map((name) => ({ name, estimate: 0, ciLow: 0, ciHigh: 0 })),
    );
    expect(coefficients[0]!.ciHigh - coefficients[0]!.ciLow).toBeGreaterThan(0);
  });

  it('state the standard normal quantiles to the digits they print', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.995)).toBeCloseTo(2.575829, 6);
    expect(normalQuantile(0.005)).toBeCloseTo(-2.575829, 6);
    expect(normalQuantile(0.5)).toBe(0);
    expect(() => normalQuantile(1)).toThrow(RangeError);
  });
});

describe('records the votes cannot place', () => {
  const win = (a: number, b: number, count = 1): BattleVote[] =>
    Array.from({ length: count }, () => ({ a, b, outcome: 'a' }));
  const placedIds = (votes: BattleVote[]) => {
    const table = tabulateVotes(votes);
    const placed = placedAgents(table);
    return [...table.agentIds].filter((_, i) => placed[i] === 1);
  };
  // Agents 1, 2 and 3 beat one another in a circle: every one of them has beaten every other.
  const circle = [...win(1, 2), ...win(2, 3), ...win(3, 1)];

  it('the unbeaten, the winless and a group that beat everyone outside it are separated; a circle is placed', () => {
    expect(placedIds(circle)).toEqual([1, 2, 3]);
    expect(placedIds([...circle, ...win(4, 1, 5)])).toEqual([1, 2, 3]);
    expect(placedIds([...circle, ...win(2, 5, 5)])).toEqual([1, 2, 3]);
    // 6 and 7 beat each other, and both beat 1: a group never beaten from outside.
    expect(placedIds([...circle, ...win(6, 7), ...win(7, 6), ...win(6, 1), ...win(7, 2)])).toEqual([1, 2, 3]);
    // A tie scores for both sides.
    expect(placedIds([...circle, { a: 8, b: 1, outcome: 'tie' }])).toEqual([1, 2, 3, 8]);
  });

  it('nobody is placed when the largest part is one agent or two parts tie for it', () => {
    expect(placedIds(win(1, 2))).toEqual([]);
    expect(placedIds([...win(1, 2), ...win(2, 1), ...win(3, 4), ...win(4, 3)])).toEqual([]);
  });

  it('an unbeaten agent gets the interval its votes and the prior set, and the row says so', () => {
    const entries = fitLeaderboard([...syntheticVotes([0, 50, 100, 150], 400, 3), ...win(5, 1, 6), ...win(5, 3, 6)]);
    const unbeaten = entries.find((e) => e.agentId === 5)!;
    expect(unbeaten.separated).toBe(true);
    expect(entries.filter((e) => e.agentId !== 5).every((e) => !e.separated)).toBe(true);
    // Twelve wins of twelve say it is strong, not how strong: the interval is hundreds of points wide.
    expect(unbeaten.ciHigh - unbeaten.ciLow).toBeGreaterThan(400);
    expect(unbeaten.ciLow).toBeLessThan(unbeaten.rating);
  });

  it('the comparison graph: groups that never met, largest first', () => {
    const table = tabulateVotes([...circle, ...win(10, 11), ...win(12, 13, 2), ...win(13, 12)]);
    const ids = comparisonGroups(table).map((group) => group.map((i) => table.agentIds[i]));
    expect(ids).toEqual([
      [1, 2, 3],
      [10, 11],
      [12, 13],
    ]);
  });
});
