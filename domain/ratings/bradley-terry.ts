/** The leaderboard's Bradley-Terry ratings, with robust 95% intervals in closed form and interval-aware ranks. */

import { BradleyTerrySolver } from './bt-fit';
import { ELO_SCALE, INITIAL_ELO } from './elo';
import { normalQuantile, placedAgents, rawSpread, type Spread } from './intervals';
import { mulberry32, standardNormal } from './random';
import { drawResample, pairTotals, tabulateVotes, type BattleVote, type VoteTable } from './vote-table';

export type { BattleVote } from './vote-table';

export interface FittedRating {
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
  /**
   * The votes alone cannot place it (it never lost, never scored, or its group never lost to, beat
   * or met the rest): its interval is the model's, set by its votes and the prior together.
   */
  separated: boolean;
}

/**
 * The standard deviation, in Elo points, of the prior on each rating: about the spread an audit
 * of this arena's boards measured, so a sparse board's ratings are neither stretched nor squashed.
 * docs/decisions.md says why it is fixed rather than estimated per board.
 */
export const PRIOR_SD = 250;

export interface LeaderboardOptions {
  /**
   * Bootstrap resamples to take the intervals from, instead of the closed form; kept to compare
   * the two (`arena leaderboard fit --bootstrap N`).
   */
  bootstrap?: number;
  /** Seed for the bootstrap's generator; the same votes and seed give the same intervals. */
  seed?: number;
  /** Two-sided coverage of the interval; default 0.95. */
  confidence?: number;
  /** Standard deviation, in Elo points, of the Gaussian prior on each rating; default PRIOR_SD. */
  priorSd?: number;
  /** Convergence tolerance on the ratings, in Elo points; default 1e-6. */
  tolerance?: number;
  /** Newton iteration cap per fit; default 100. */
  maxIterations?: number;
}

/** Natural-log strength to Elo points: 400·log10(e^θ). */
export const ELO_PER_NAT = ELO_SCALE / Math.LN10;

/**
 * Mixed into the seed for the prior's draws, so they come from a stream of their own and the
 * vote resampling draws the same votes for a given seed as it did before the prior took part.
 */
export const PRIOR_STREAM = 0x5bd1e995;

/**
 * Fits ratings to all votes: Bradley-Terry with ties and both-bad as half a win to each side, a
 * Gaussian prior on each strength, and the mean rating anchored at 1500. A vote of an agent
 * against itself carries no information and is ignored. Entries come back best first (equal
 * ratings by agent id). The intervals are robust ones in closed form (intervals.ts), or a
 * bootstrap's when asked for.
 */
export function fitLeaderboard(votes: readonly BattleVote[], options: LeaderboardOptions = {}): FittedRating[] {
  return fitVoteTable(tabulateVotes(votes), options);
}

/** The fit's settings with their defaults, checked: the raw and the style-controlled fits read them alike. */
export function fitSettings(options: LeaderboardOptions): {
  bootstrap: number | undefined;
  confidence: number;
  priorSd: number;
} {
  const { bootstrap } = options;
  const confidence = options.confidence ?? 0.95;
  const priorSd = options.priorSd ?? PRIOR_SD;
  if (bootstrap !== undefined && !(Number.isInteger(bootstrap) && bootstrap >= 1))
    throw new RangeError('bootstrap resamples must be a positive integer');
  if (!(confidence > 0 && confidence < 1)) throw new RangeError('confidence must be between 0 and 1');
  if (!(priorSd > 0)) throw new RangeError('priorSd must be positive');
  return { bootstrap, confidence, priorSd };
}

/** fitLeaderboard on votes already tabulated, so that several boards can share one table. */
export function fitVoteTable(table: VoteTable, options: LeaderboardOptions = {}): FittedRating[] {
  const { bootstrap, confidence, priorSd } = fitSettings(options);
  const n = table.agentIds.length;
  if (n === 0) return [];

  const priorPrecision = (ELO_PER_NAT / priorSd) ** 2;
  const solver = new BradleyTerrySolver(table.pairs, {
    priorPrecision,
    tolerance: (options.tolerance ?? 1e-6) / ELO_PER_NAT,
    maxIterations: options.maxIterations ?? 100,
  });
  const pairCount = table.pairs.first.length;
  const score = new Float64Array(pairCount);
  const games = new Float64Array(pairCount);
  const times = new Int32Array(table.outcomeKeys.length).fill(1);
  pairTotals(table, times, score, games);
  const fitted = new Float64Array(n);
  solver.solve(score, games, fitted);
  const ratings = toRatings(fitted, new Float64Array(n));
  const placed = placedAgents(table);

  const bounds =
    bootstrap === undefined
      ? closedFormBounds(ratings, rawSpread(table, fitted, solver, priorPrecision), placed, confidence, priorPrecision)
      : bootstrapBounds(table, solver, fitted, { resamples: bootstrap, seed: options.seed ?? 1, priorSd, confidence });
  return boardEntries(table, ratings, bounds, placed);
}

/** Each agent's row, best first (equal ratings by agent id): the raw and the controlled fits alike. */
export function boardEntries(
  table: VoteTable,
  ratings: Float64Array,
  bounds: Bounds,
  placed: Uint8Array,
): FittedRating[] {
  const { records } = table;
  const entries: FittedRating[] = Array.from(table.agentIds, (agentId, index) => ({
    agentId,
    rating: ratings[index]!,
    ciLow: bounds.low[index]!,
    ciHigh: bounds.high[index]!,
    votes: records.votes[index]!,
    wins: records.wins[index]!,
    losses: records.losses[index]!,
    ties: records.ties[index]!,
    separated: placed[index] === 0,
  }));
  return entries.sort((x, y) => y.rating - x.rating || x.agentId - y.agentId);
}

export interface Bounds {
  low: Float64Array;
  high: Float64Array;
}

/**
 * rating ± z·sd, reaching further away from the mean by the prior's pull. A placed agent's
 * variance is the sandwich's, but never below the model's own: with few votes the sandwich runs
 * narrow (a single tie has no surprise at all, so its meat is zero), and with many the two agree.
 * A separated agent's is the model's.
 *
 * The prior pulls every rating toward the mean, by about λ·θ·v (λ its precision, θ the fitted
 * strength, v the model's variance): little for an agent with many votes, a great deal for a far
 * agent with few, whose votes say least exactly where it sits (its wins were nearly certain). An
 * interval centred on the pulled rating would miss such agents' true strengths more often than it
 * says, so it also reaches as far beyond the rating, away from the mean, as the pull.
 */
export function closedFormBounds(
  ratings: Float64Array,
  spread: Spread,
  placed: Uint8Array,
  confidence: number,
  priorPrecision: number,
): Bounds {
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const n = ratings.length;
  const low = new Float64Array(n);
  const high = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const model = spread.model[i]!;
    const variance = placed[i] ? Math.max(spread.sandwich[i]!, model) : model;
    const half = z * Math.sqrt(Math.max(0, variance)) * ELO_PER_NAT;
    const pull = priorPrecision * (ratings[i]! - INITIAL_ELO) * model;
    low[i] = ratings[i]! - half - Math.max(0, -pull);
    high[i] = ratings[i]! + half + Math.max(0, pull);
  }
  return { low, high };
}

/**
 * Percentile intervals from refits to bootstrap resamples of the votes. The prior takes part in
 * every resample, not only as a fixed pull toward the mean: each resample centres each agent's
 * prior on a fresh draw from the prior itself (a randomised prior). Resampling the votes alone
 * cannot show what a handful of votes leaves unknown: one vote, or a pair that always ended the
 * same way, resamples to the very same data, and the interval would have no width.
 */
function bootstrapBounds(
  table: VoteTable,
  solver: BradleyTerrySolver,
  fitted: Float64Array,
  settings: { resamples: number; seed: number; priorSd: number; confidence: number },
): Bounds {
  const { resamples, seed, priorSd, confidence } = settings;
  const n = fitted.length;
  const pairCount = table.pairs.first.length;
  const score = new Float64Array(pairCount);
  const games = new Float64Array(pairCount);
  const times = new Int32Array(table.outcomeKeys.length);
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
  return percentileBounds(samples, n, resamples, confidence);
}

/** Each column's percentile interval, from `resamples` rows of `width` samples. */
export function percentileBounds(samples: Float64Array, width: number, resamples: number, confidence: number): Bounds {
  const tail = (1 - confidence) / 2;
  const column = new Float64Array(resamples);
  const low = new Float64Array(width);
  const high = new Float64Array(width);
  for (let index = 0; index < width; index++) {
    for (let r = 0; r < resamples; r++) column[r] = samples[r * width + index]!;
    column.sort();
    low[index] = percentile(column, tail);
    high[index] = percentile(column, 1 - tail);
  }
  return { low, high };
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
