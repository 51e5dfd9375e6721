import { fitLeaderboard, type BattleVote } from '../../../domain/ratings/bradley-terry';
import { BradleyTerrySolver, type SolverOptions } from '../../../domain/ratings/bt-fit';
import { ELO_SCALE } from '../../../domain/ratings/elo';
import { mulberry32, standardNormal } from '../../../domain/ratings/random';
import { pairTotals, tabulateVotes } from '../../../domain/ratings/vote-table';
import { DenseNewtonSolver } from './dense-newton-reference';
import { randomPair, syntheticVotes } from './synthetic-votes';

const ELO_PER_NAT = ELO_SCALE / Math.LN10;
const OUTCOMES = ['a', 'b', 'tie', 'both_bad'] as const;

/** The solver's options as fitLeaderboard sets them, for a prior sd in Elo points. */
function optionsFor(priorSd: number): SolverOptions {
  return { priorPrecision: (ELO_PER_NAT / priorSd) ** 2, tolerance: 1e-6 / ELO_PER_NAT, maxIterations: 100 };
}

/**
 * How far the two fits may differ, in Elo points. Not the tolerance itself (1e-6): the dense
 * solver stops early when its line search cannot see the objective rise through rounding, which
 * leaves it up to about 1e-4 points short of the optimum on the unbeaten-and-winless arena.
 */
const AGREEMENT = 1e-4;

/** The largest component of the penalised log-likelihood's gradient at `theta`: zero at the optimum. */
function largestSlope(
  { pairs, score, games }: ReturnType<typeof pairResults>,
  priorPrecision: number,
  theta: Float64Array,
  center: Float64Array,
): number {
  const gradient = theta.map((value, i) => -priorPrecision * (value - center[i]!));
  pairs.first.forEach((i, p) => {
    const j = pairs.second[p]!;
    const surprise = score[p]! - games[p]! / (1 + Math.exp(theta[j]! - theta[i]!));
    gradient[i]! += surprise;
    gradient[j]! -= surprise;
  });
  return Math.max(...gradient.map(Math.abs));
}

function pairResults(votes: readonly BattleVote[]) {
  const table = tabulateVotes(votes);
  const score = new Float64Array(table.pairs.first.length);
  const games = new Float64Array(table.pairs.first.length);
  pairTotals(table, new Int32Array(table.outcomeKeys.length).fill(1), score, games);
  return { pairs: table.pairs, score, games };
}

/** The arenas of the rating tests, and small ones of any shape (some in separate groups). */
function fixtures(): { name: string; votes: BattleVote[]; priorSd: number }[] {
  const random = mulberry32(77);
  const small = Array.from({ length: 20 }, (_, arena) => {
    const agents = 2 + Math.floor(random() * 5);
    const votes = Array.from({ length: 1 + Math.floor(random() * 25) }, (): BattleVote => {
      const [a, b] = randomPair(random, agents);
      return { a, b, outcome: OUTCOMES[Math.floor(random() * OUTCOMES.length)]! };
    });
    return { name: `small arena ${arena}`, votes, priorSd: 1000 };
  });
  return [
    { name: 'one vote', votes: [{ a: 1, b: 2, outcome: 'a' }], priorSd: 1000 },
    {
      name: 'two agents, nearly no prior',
      votes: [
        { a: 1, b: 2, outcome: 'a' },
        { a: 1, b: 2, outcome: 'a' },
        { a: 2, b: 1, outcome: 'tie' },
      ],
      priorSd: 1e7,
    },
    {
      name: '12 agents',
      votes: syntheticVotes(
        Array.from({ length: 12 }, (_, i) => 1200 + 60 * i),
        8000,
        11,
      ),
      priorSd: 1000,
    },
    {
      name: '30 agents',
      votes: syntheticVotes(
        Array.from({ length: 30 }, (_, i) => 1150 + 25 * i),
        6000,
        21,
      ),
      priorSd: 1000,
    },
    { name: '5 agents', votes: syntheticVotes([1300, 1400, 1500, 1600, 1700], 2000, 5), priorSd: 1000 },
    {
      name: 'unbeaten and winless agents',
      votes: [
        ...syntheticVotes([1400, 1500, 1600], 300, 8),
        ...Array.from({ length: 30 }, (_, i): BattleVote => ({ a: 4, b: 1 + (i % 3), outcome: 'a' })),
        ...Array.from({ length: 30 }, (_, i): BattleVote => ({ a: 1 + (i % 3), b: 5, outcome: 'a' })),
      ],
      priorSd: 1000,
    },
    {
      name: '100 agents',
      votes: syntheticVotes(
        Array.from({ length: 100 }, (_, i) => 1000 + 10 * i),
        50_000,
        99,
      ),
      priorSd: 1000,
    },
    ...small,
  ];
}

describe('the sparse Bradley-Terry solver', () => {
  it('finds the same optimum as the dense Newton solver, from zero and from a warm start with a drawn prior', () => {
    for (const { name, votes, priorSd } of fixtures()) {
      const { pairs, score, games } = pairResults(votes);
      const n = pairs.agentCount;
      const options = optionsFor(priorSd);
      const sparse = new BradleyTerrySolver(pairs, options);
      const dense = new DenseNewtonSolver(pairs, options);

      const fitted = new Float64Array(n);
      const reference = new Float64Array(n);
      expect({ name, ...sparse.solve(score, games, fitted) }).toMatchObject({ name, converged: true });
      expect(dense.solve(score, games, reference).converged).toBe(true);
      for (let i = 0; i < n; i++)
        expect({ name, gap: Math.abs(fitted[i]! - reference[i]!) * ELO_PER_NAT < AGREEMENT }).toEqual({
          name,
          gap: true,
        });
      expect({
        name,
        slope: largestSlope({ pairs, score, games }, options.priorPrecision, fitted, new Float64Array(n)) < 1e-7,
      }).toEqual({ name, slope: true });

      // A bootstrap resample's fit: some pairs left out, others counted twice, the prior drawn.
      const draw = mulberry32(n);
      const resampled = games.map((count) => count * Math.floor(draw() * 3));
      const resampledScore = score.map((points, p) => (games[p]! > 0 ? (points * resampled[p]!) / games[p]! : 0));
      const normal = standardNormal(draw);
      const center = Float64Array.from({ length: n }, () => (priorSd / ELO_PER_NAT) * normal());
      const warm = Float64Array.from(fitted);
      const warmReference = Float64Array.from(fitted);
      expect({ name, ...sparse.solve(resampledScore, resampled, warm, center) }).toMatchObject({
        name,
        converged: true,
      });
      expect(dense.solve(resampledScore, resampled, warmReference, center).converged).toBe(true);
      for (let i = 0; i < n; i++)
        expect({ name, gap: Math.abs(warm[i]! - warmReference[i]!) * ELO_PER_NAT < AGREEMENT }).toEqual({
          name,
          gap: true,
        });
      const resampledPairs = { pairs, score: resampledScore, games: resampled };
      expect({ name, slope: largestSlope(resampledPairs, options.priorPrecision, warm, center) < 1e-7 }).toEqual({
        name,
        slope: true,
      });
    }
  });

  it('converges for newcomers with a few votes each and drawn priors, where a plain Newton step overshoots', () => {
    // Most agents met two or three others: many sit on the flat side of their results.
    const votes = syntheticVotes(
      Array.from({ length: 20_000 }, (_, i) => 1000 + 0.05 * i),
      30_000,
      12,
    );
    const results = pairResults(votes);
    const n = results.pairs.agentCount;
    const options = optionsFor(1000);
    const solver = new BradleyTerrySolver(results.pairs, options);
    const fitted = new Float64Array(n);
    expect(solver.solve(results.score, results.games, fitted).converged).toBe(true);
    // A bootstrap resample's fit, as in fitLeaderboard: some pairs left out, the prior drawn.
    const draw = mulberry32(3);
    const games = results.games.map((count) => count * Math.floor(draw() * 3));
    const score = results.score.map((points, p) =>
      results.games[p]! > 0 ? (points * games[p]!) / results.games[p]! : 0,
    );
    const normal = standardNormal(draw);
    const center = Float64Array.from({ length: n }, () => (1000 / ELO_PER_NAT) * normal());
    const report = solver.solve(score, games, fitted, center);
    expect(report.converged).toBe(true);
    expect(report.iterations).toBeLessThan(30);
    expect(largestSlope({ pairs: results.pairs, score, games }, options.priorPrecision, fitted, center)).toBeLessThan(
      1e-7,
    );
  });

  it('fits 100,000 agents, whose dense Hessian could not even be allocated', () => {
    const truth = Array.from({ length: 100_000 }, (_, i) => 1000 + 0.01 * i);
    const entries = fitLeaderboard(syntheticVotes(truth, 300_000, 4), {});
    expect(entries.length).toBeGreaterThan(99_000);
    const mean = entries.reduce((sum, entry) => sum + entry.rating, 0) / entries.length;
    expect(mean).toBeCloseTo(1500, 6);
    // The strongest tenth ends up well above the weakest tenth.
    const averageOf = (from: number, to: number) => {
      const slice = entries.filter((entry) => entry.agentId > from && entry.agentId <= to);
      return slice.reduce((sum, entry) => sum + entry.rating, 0) / slice.length;
    };
    expect(averageOf(90_000, 100_000) - averageOf(0, 10_000)).toBeGreaterThan(400);
    const unfinished = entries.filter((entry) => ![entry.rating, entry.ciLow, entry.ciHigh].every(Number.isFinite));
    expect(unfinished).toEqual([]);
  }, 60_000);
});
