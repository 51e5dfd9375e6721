/** The leaderboard's Bradley-Terry ratings, with bootstrap 95% intervals and interval-aware ranks. */

import { BradleyTerrySolver } from './bt-fit';
import { ELO_SCALE, INITIAL_ELO } from './elo';
import { mulberry32, standardNormal } from './random';
import { drawResample, pairTotals, tabulateVotes, type BattleVote, type VoteTable } from './vote-table';

export type { BattleVote } from './vote-table';

export interface LeaderboardEntry {
  agentId: number;
  /** Bradley-Terry rating on the Elo scale; the mean over the fitted agents is 1500. */
  rating: number;
  ciLow: number;
  ciHigh: number;
  votes: number;
  wins: number;
  losses: number;
  /** Ties and both-bad verdicts. */
  ties: number;
}

export interface LeaderboardOptions {
  /** Bootstrap resamples of the votes; default 100. */
  resamples?: number;
  /** Seed for the resampling generator; the same votes and seed give the same intervals. */
  seed?: number;
  /** Two-sided coverage of the interval; default 0.95. */
  confidence?: number;
  /**
   * Standard deviation, in Elo points, of the Gaussian prior that keeps unbeaten and winless
   * agents finite. Default 1000: worth about an eighth of one even game's evidence, so it pulls
   * an agent with a few dozen votes toward the mean by a point or two at most.
   */
  priorSd?: number;
  /** Convergence tolerance on the ratings, in Elo points; default 1e-6. */
  tolerance?: number;
  /** Newton iteration cap per fit; default 100. */
  maxIterations?: number;
}

/** Natural-log strength to Elo points: 400·log10(e^θ). */
const ELO_PER_NAT = ELO_SCALE / Math.LN10;

/**
 * Mixed into the seed for the prior's draws, so they come from a stream of their own and the
 * vote resampling draws the same votes for a given seed as it did before the prior took part.
 */
const PRIOR_STREAM = 0x5bd1e995;

/**
 * Fits ratings to all votes, then refits to `resamples` bootstrap resamples of the votes and
 * takes percentile intervals. Ties and both-bad count half a win to each side, as in Elo.
 * A vote of an agent against itself carries no information and is ignored. Entries come back
 * best first (equal ratings by agent id).
 *
 * The prior takes part in every resample, not only as a fixed pull toward the mean: each
 * resample centres each agent's prior on a fresh draw from the prior itself (a randomised
 * prior). Resampling the votes alone cannot show what a handful of votes leaves unknown: one
 * vote, or a pair that always ended the same way, resamples to the very same data, and the
 * interval would have no width. With many votes the likelihood outweighs the prior and the
 * draws move the intervals by a fraction of a point.
 */
export function fitLeaderboard(votes: readonly BattleVote[], options: LeaderboardOptions = {}): LeaderboardEntry[] {
  return fitVoteTable(tabulateVotes(votes), options);
}

/** The bootstrap's settings with their defaults, checked: the raw and the style-controlled fits read them alike. */
export function bootstrapSettings(options: LeaderboardOptions): {
  resamples: number;
  confidence: number;
  priorSd: number;
} {
  const resamples = options.resamples ?? 100;
  const confidence = options.confidence ?? 0.95;
  const priorSd = options.priorSd ?? 1000;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError('resamples must be a positive integer');
  if (!(confidence > 0 && confidence < 1)) throw new RangeError('confidence must be between 0 and 1');
  if (!(priorSd > 0)) throw new RangeError('priorSd must be positive');
  return { resamples, confidence, priorSd };
}

/** fitLeaderboard on votes already tabulated, so that several boards can share one table. */
export function fitVoteTable(table: VoteTable, options: LeaderboardOptions = {}): LeaderboardEntry[] {
  const { resamples, confidence, priorSd } = bootstrapSettings(options);
  const n = table.agentIds.length;
  if (n === 0) return [];

  const solver = new BradleyTerrySolver(table.pairs, {
    priorPrecision: (ELO_PER_NAT / priorSd) ** 2,
    tolerance: (options.tolerance ?? 1e-6) / ELO_PER_NAT,
    maxIterations: options.maxIterations ?? 100,
  });
  const pairCount = table.pairs.first.length;
  const score = new Float64Array(pairCount);
  const games = new Float64Array(pairCount);

  // How often each vote counts: once in the point fit, as often as drawn in a resample.
  const times = new Int32Array(table.outcomeKeys.length).fill(1);
  pairTotals(table, times, score, games);
  const fitted = new Float64Array(n);
  solver.solve(score, games, fitted);
  const ratings = toRatings(fitted, new Float64Array(n));

  // Each resample refills the same count arrays, and starts from the full-data fit.
  const seed = options.seed ?? 1;
  const random = mulberry32(seed);
  const priorDraw = standardNormal(mulberry32((seed ^ PRIOR_STREAM) >>> 0));
  const priorSdNats = priorSd / ELO_PER_NAT;
  const priorCenter = new Float64Array(n);
  const samples = new Float64Array(resamples * n);
  const theta = new Float64Array(n);
  const resampledRatings = new Float64Array(n);
  for (let r = 0; r < resamples; r++) {
    drawResample(table, random, times);
    pairTotals(table, times, score, games);
    for (let i = 0; i < n; i++) priorCenter[i] = priorSdNats * priorDraw();
    theta.set(fitted);
    solver.solve(score, games, theta, priorCenter);
    samples.set(toRatings(theta, resampledRatings), r * n);
  }

  const tail = (1 - confidence) / 2;
  const column = new Float64Array(resamples);
  const { records } = table;
  const entries: LeaderboardEntry[] = Array.from(table.agentIds, (agentId, index) => {
    for (let r = 0; r < resamples; r++) column[r] = samples[r * n + index]!;
    column.sort();
    return {
      agentId,
      rating: ratings[index]!,
      ciLow: percentile(column, tail),
      ciHigh: percentile(column, 1 - tail),
      votes: records.votes[index]!,
      wins: records.wins[index]!,
      losses: records.losses[index]!,
      ties: records.ties[index]!,
    };
  });
  return entries.sort((x, y) => y.rating - x.rating || x.agentId - y.agentId);
}

/**
 * An agent's rank is 1 + the number of agents clearly ahead of it: those whose interval lies
 * entirely above its own (their ciLow above its ciHigh). Agents whose intervals overlap share
 * ranks, so a rank is a claim the data supports. Input order is kept.
 */
export function rankByIntervals<T extends { ciLow: number; ciHigh: number }>(
  entries: readonly T[],
): (T & { rank: number })[] {
  const lows = Float64Array.from(entries, (entry) => entry.ciLow).sort();
  return entries.map((entry) => ({ ...entry, rank: 1 + lows.length - countAtMost(lows, entry.ciHigh) }));
}

/** Elo-scale ratings whose mean is 1500, written into `out`. */
export function toRatings(theta: Float64Array, out: Float64Array): Float64Array {
  let mean = 0;
  for (let i = 0; i < theta.length; i++) mean += theta[i]!;
  mean /= theta.length;
  for (let i = 0; i < theta.length; i++) out[i] = INITIAL_ELO + (theta[i]! - mean) * ELO_PER_NAT;
  return out;
}

/** Linear interpolation between order statistics (the common "type 7" definition); `sorted` is never empty. */
export function percentile(sorted: Float64Array, q: number): number {
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (position - below) * (sorted[above]! - sorted[below]!);
}

/** How many values in the ascending array are at most `limit`. */
function countAtMost(sorted: Float64Array, limit: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! <= limit) low = middle + 1;
    else high = middle;
  }
  return low;
}
