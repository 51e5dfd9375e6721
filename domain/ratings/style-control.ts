/**
 * The leaderboard controlled for style, after LMArena's published method: each vote carries
 * covariates (its answers' style differences, standardised, and which side was shown on the left),
 * and the chance that side a wins is σ(θa − θb + β·x). Strengths θ and coefficients β are fitted
 * together, so a strength is what an agent wins by with style held equal, and each coefficient is
 * what a standard deviation of that style difference is worth in log-odds.
 *
 * The fit is the raw board's, widened: the same prior on the strengths, the same bootstrap (the
 * same seed draws the same votes and prior centres), the same per-agent reach, and Newton steps
 * solved by conjugate gradients. Covariates that differ from one vote to the next keep the votes
 * from being added up by pair once and for all, so each Newton step makes one pass over the votes
 * (the votes a resample drew, packed), to add up the curvature per pair and the coefficients'
 * block and coupling; the coefficients are then eliminated from the Newton system, and the
 * conjugate-gradient products pass over the pairs only, as in the raw fit.
 */
import { ELO_SCALE } from './elo';
import { mulberry32, standardNormal } from './random';
import { StyleControlledSolver } from './style-control-solver';
import { drawResample, tabulateVotes, type BattleVote, type VoteTable } from './vote-table';
import { bootstrapSettings, percentile, toRatings, type LeaderboardEntry } from './bradley-terry';

const { sqrt } = Math;

/** A vote with its style differences, side a against side b, in the order of the fit's `featureNames`. */
export interface StyledVote extends BattleVote {
  features: ArrayLike<number>;
}

export interface CoefficientEstimate {
  /** A style feature's name, or `position` for the side shown on the left. */
  name: string;
  /** Log-odds of winning per standard deviation of the feature (for position: for being on the left). */
  estimate: number;
  ciLow: number;
  ciHigh: number;
}

export interface StyleControlledBoard {
  entries: LeaderboardEntry[];
  coefficients: CoefficientEstimate[];
}

export interface StyleControlOptions {
  /** The style features' names, in the order of each vote's `features`. */
  featureNames: readonly string[];
  /** As for the raw board (`LeaderboardOptions`). */
  resamples?: number;
  seed?: number;
  confidence?: number;
  priorSd?: number;
  tolerance?: number;
  maxIterations?: number;
}

/** The name of the last coefficient: side a was shown on the left, so it measures a bias toward the left. */
export const POSITION = 'position';

const ELO_PER_NAT = ELO_SCALE / Math.LN10;
/** As in the raw board: the prior centres' draws come from a stream of their own. */
const PRIOR_STREAM = 0x5bd1e995;
/** The votes' covariates, standardised, by position in the vote table and oriented toward each pair's first agent. */
export interface StyleCovariates {
  names: string[];
  /** Positions × covariates, row by row; the last covariate is the position (left) one. */
  x: Float64Array;
}

/**
 * Standardises each feature over the counted votes (mean 0, standard deviation 1, as LMArena
 * does) and adds the position covariate, 1 for side a. Each row is stored at the vote's position
 * in the table and negated when side a is its pair's second agent, so the fit reads every vote as
 * its pair's first agent against its second.
 */
export function styleCovariates(
  table: VoteTable,
  votes: readonly StyledVote[],
  featureNames: readonly string[],
): StyleCovariates {
  const features = featureNames.length;
  const K = features + 1;
  const counted = table.votePosition.length;
  const mean = new Float64Array(features);
  const spread = new Float64Array(features);
  for (const vote of votes) {
    if (vote.features.length !== features)
      throw new RangeError(`every vote needs ${features} style features; one has ${vote.features.length}`);
    if (vote.a === vote.b) continue;
    for (let f = 0; f < features; f++) mean[f]! += vote.features[f]! / counted;
  }
  for (const vote of votes) {
    if (vote.a === vote.b) continue;
    for (let f = 0; f < features; f++) spread[f]! += (vote.features[f]! - mean[f]!) ** 2 / counted;
  }
  for (let f = 0; f < features; f++) spread[f] = sqrt(spread[f]!);
  const x = new Float64Array(counted * K);
  let v = 0;
  for (const vote of votes) {
    if (vote.a === vote.b) continue;
    const row = table.votePosition[v++]! * K;
    // Agent ids ascend with their indices, so side a is its pair's first agent when its id is the lower.
    const orientation = vote.a < vote.b ? 1 : -1;
    for (let f = 0; f < features; f++)
      x[row + f] = spread[f]! > 0 ? (orientation * (vote.features[f]! - mean[f]!)) / spread[f]! : 0;
    x[row + features] = orientation;
  }
  return { names: [...featureNames, POSITION], x };
}

/**
 * The style-controlled board: ratings on the Elo scale (mean 1500) with bootstrap intervals,
 * exactly as the raw board computes them, and each coefficient with its interval. Entries come
 * back best first (equal ratings by agent id), coefficients in `featureNames` order, then position.
 */
export function fitStyleControlled(votes: readonly StyledVote[], options: StyleControlOptions): StyleControlledBoard {
  return fitStyleControlledTable(tabulateVotes(votes), votes, options);
}

/** fitStyleControlled on votes already tabulated (`table` is `tabulateVotes(votes)`), so that a raw board can share the table. */
export function fitStyleControlledTable(
  table: VoteTable,
  votes: readonly StyledVote[],
  options: StyleControlOptions,
): StyleControlledBoard {
  const { resamples, confidence, priorSd } = bootstrapSettings(options);
  const covariates = styleCovariates(table, votes, options.featureNames);
  const n = table.agentIds.length;
  const K = covariates.names.length;
  if (n === 0) return { entries: [], coefficients: [] };

  const solver = new StyleControlledSolver(table, covariates.x, K, {
    priorPrecision: (ELO_PER_NAT / priorSd) ** 2,
    tolerance: (options.tolerance ?? 1e-6) / ELO_PER_NAT,
    maxIterations: options.maxIterations ?? 100,
  });
  const times = new Int32Array(table.outcomeKeys.length).fill(1);
  const fitted = new Float64Array(n + K);
  solver.solve(times, fitted);
  const ratings = toRatings(fitted.subarray(0, n), new Float64Array(n));

  const seed = options.seed ?? 1;
  const random = mulberry32(seed);
  const priorDraw = standardNormal(mulberry32((seed ^ PRIOR_STREAM) >>> 0));
  const priorSdNats = priorSd / ELO_PER_NAT;
  const center = new Float64Array(n);
  const point = new Float64Array(n + K);
  const ratingSamples = new Float64Array(resamples * n);
  const coefficientSamples = new Float64Array(resamples * K);
  const resampledRatings = new Float64Array(n);
  for (let r = 0; r < resamples; r++) {
    drawResample(table, random, times);
    for (let i = 0; i < n; i++) center[i] = priorSdNats * priorDraw();
    point.set(fitted);
    solver.solve(times, point, center);
    ratingSamples.set(toRatings(point.subarray(0, n), resampledRatings), r * n);
    coefficientSamples.set(point.subarray(n), r * K);
  }

  const tail = (1 - confidence) / 2;
  const column = new Float64Array(resamples);
  const interval = (samples: Float64Array, stride: number, index: number): [number, number] => {
    for (let r = 0; r < resamples; r++) column[r] = samples[r * stride + index]!;
    column.sort();
    return [percentile(column, tail), percentile(column, 1 - tail)];
  };
  const { records } = table;
  const entries: LeaderboardEntry[] = Array.from(table.agentIds, (agentId, index) => {
    const [ciLow, ciHigh] = interval(ratingSamples, n, index);
    return {
      agentId,
      rating: ratings[index]!,
      ciLow,
      ciHigh,
      votes: records.votes[index]!,
      wins: records.wins[index]!,
      losses: records.losses[index]!,
      ties: records.ties[index]!,
    };
  });
  const coefficients = covariates.names.map((name, k) => {
    const [ciLow, ciHigh] = interval(coefficientSamples, K, k);
    return { name, estimate: fitted[n + k]!, ciLow, ciHigh };
  });
  return { entries: entries.sort((x, y) => y.rating - x.rating || x.agentId - y.agentId), coefficients };
}
