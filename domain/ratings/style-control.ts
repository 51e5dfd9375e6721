/**
 * The leaderboard controlled for style, after LMArena's published method: each vote carries
 * covariates (its answers' style differences, standardised, and which side was shown on the left),
 * and the chance that side a wins is σ(θa − θb + β·x). Strengths θ and coefficients β are fitted
 * together, so a strength is what an agent wins by with style held equal, and each coefficient is
 * what a standard deviation of that style difference is worth in log-odds.
 *
 * The fit is the raw board's, widened: the same prior on the strengths, the same intervals (in
 * closed form, or the same bootstrap when asked for), the same per-agent reach, and Newton steps
 * solved by conjugate gradients. Covariates that differ from one vote to the next keep the votes
 * from being added up by pair once and for all, so each Newton step makes one pass over the votes
 * (the votes a resample drew, packed), to add up the curvature per pair and the coefficients'
 * block and coupling; the coefficients are then eliminated from the Newton system, and the
 * conjugate-gradient products pass over the pairs only, as in the raw fit.
 */
import {
  ELO_PER_NAT,
  PRIOR_STREAM,
  boardEntries,
  closedFormBounds,
  fitSettings,
  percentileBounds,
  toRatings,
  type Bounds,
  type FittedRating,
} from './bradley-terry';
import { exactIntervals, normalQuantile, placedAgents, type Spread, type SpreadChoice } from './intervals';
import { mulberry32, standardNormal } from './random';
import { StyleControlledSolver } from './style-control-solver';
import { drawResample, tabulateVotes, type BattleVote, type VoteTable } from './vote-table';

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

/** A coefficient as the API, the CLI and the stored boards write it. */
export function coefficientRow(c: CoefficientEstimate): {
  name: string;
  estimate: number;
  ci_low: number;
  ci_high: number;
} {
  return { name: c.name, estimate: c.estimate, ci_low: c.ciLow, ci_high: c.ciHigh };
}

export interface StyleControlledBoard {
  entries: FittedRating[];
  coefficients: CoefficientEstimate[];
}

export interface StyleControlOptions {
  /** The style features' names, in the order of each vote's `features`. */
  featureNames: readonly string[];
  /** As for the raw board (`LeaderboardOptions`). */
  bootstrap?: number;
  seed?: number;
  confidence?: number;
  priorSd?: number;
  tolerance?: number;
  maxIterations?: number;
}

/**
 * Fewer votes on a board than this and no style effect is called clear, whatever its interval.
 * Chosen from the simulation in test/unit/ratings/coverage.test.ts: with no true effect, boards of 15
 * to 1,000 votes print a clear effect 0-4% of the time with the joint intervals alone, but below
 * 100 votes a true effect as strong as real judges' taste for length is found on at most one
 * board in eight, so a "clear" there would be mostly luck.
 */
export const STYLE_MIN_VOTES = 100;

/** The name of the last coefficient: side a was shown on the left, so it measures a bias toward the left. */
export const POSITION = 'position';

/** The votes' covariates, standardised, by position in the vote table and oriented toward each pair's first agent. */
export interface StyleCovariates {
  names: string[];
  /** Positions × covariates, row by row; the last covariate is the position (left) one. */
  x: Float64Array;
  /** Per covariate: whether any counted vote varies in it (a feature alike in every vote is not measured). */
  measured: boolean[];
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
  // A vote's features are read once a pass: a vote may make them when asked (activities/vote-columns.ts).
  for (const vote of votes) {
    const row = vote.features;
    if (row.length !== features)
      throw new RangeError(`every vote needs ${features} style features; one has ${row.length}`);
    if (vote.a === vote.b) continue;
    for (let f = 0; f < features; f++) mean[f]! += row[f]! / counted;
  }
  for (const vote of votes) {
    if (vote.a === vote.b) continue;
    const row = vote.features;
    for (let f = 0; f < features; f++) spread[f]! += (row[f]! - mean[f]!) ** 2 / counted;
  }
  for (let f = 0; f < features; f++) spread[f] = sqrt(spread[f]!);
  const x = new Float64Array(counted * K);
  let v = 0;
  for (const vote of votes) {
    if (vote.a === vote.b) continue;
    const row = table.votePosition[v++]! * K;
    // Agent ids ascend with their indices, so side a is its pair's first agent when its id is the lower.
    const orientation = vote.a < vote.b ? 1 : -1;
    const differences = vote.features;
    for (let f = 0; f < features; f++)
      x[row + f] = spread[f]! > 0 ? (orientation * (differences[f]! - mean[f]!)) / spread[f]! : 0;
    x[row + features] = orientation;
  }
  const measured = [...Array.from(spread, (sd) => sd > 0), counted > 0];
  return { names: [...featureNames, POSITION], x, measured };
}

/**
 * The style-controlled board: ratings on the Elo scale (mean 1500) with intervals computed as the
 * raw board's are, and each coefficient with its interval. Entries come back best first (equal
 * ratings by agent id), coefficients in `featureNames` order, then position.
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
  const { bootstrap, confidence, priorSd } = fitSettings(options);
  const covariates = styleCovariates(table, votes, options.featureNames);
  const n = table.agentIds.length;
  const K = covariates.names.length;
  if (n === 0) return { entries: [], coefficients: [] };

  const priorPrecision = (ELO_PER_NAT / priorSd) ** 2;
  const solver = new StyleControlledSolver(table, covariates.x, K, {
    priorPrecision,
    tolerance: (options.tolerance ?? 1e-6) / ELO_PER_NAT,
    maxIterations: options.maxIterations ?? 100,
  });
  const times = new Int32Array(table.outcomeKeys.length).fill(1);
  const fitted = new Float64Array(n + K);
  solver.solve(times, fitted);
  const ratings = toRatings(fitted.subarray(0, n), new Float64Array(n));
  const placed = placedAgents(table);
  // The coefficients are tested together: each interval is widened so that all K hold at once
  // with the stated confidence (Bonferroni), and an effect the page calls clear is one of them.
  const jointConfidence = 1 - (1 - confidence) / K;

  let bounds: Bounds;
  let coefficientBounds: Bounds;
  if (bootstrap === undefined) {
    solver.linearizeAt(fitted);
    bounds = closedFormBounds(ratings, controlledSpread(solver, n, K, table), placed, confidence, priorPrecision);
    coefficientBounds = coefficientIntervals(solver, fitted, n, K, jointConfidence);
    // A feature no vote varies in was not measured: its estimate is the ridge's 0, and so is its
    // interval, as the bootstrap (which never moves it) gives it; the page says "not measured".
    covariates.measured.forEach((measured, k) => {
      if (!measured) coefficientBounds.low[k] = coefficientBounds.high[k] = 0;
    });
  } else {
    const samples = bootstrapSamples(table, solver, fitted, n, K, {
      resamples: bootstrap,
      seed: options.seed ?? 1,
      priorSd,
    });
    bounds = percentileBounds(samples.ratings, n, bootstrap, confidence);
    coefficientBounds = percentileBounds(samples.coefficients, K, bootstrap, jointConfidence);
  }
  const coefficients = covariates.names.map((name, k) => ({
    name,
    estimate: fitted[n + k]!,
    ciLow: coefficientBounds.low[k]!,
    ciHigh: coefficientBounds.high[k]!,
  }));
  return { entries: boardEntries(table, ratings, bounds, placed), coefficients };
}

/** The strengths' spread (see intervals.ts): exact on a small board, the Schur complement's diagonal on a large one. */
export function controlledSpread(
  solver: StyleControlledSolver,
  n: number,
  K: number,
  table: VoteTable,
  how: SpreadChoice = {},
): Spread {
  const sandwich = new Float64Array(n);
  const model = new Float64Array(n);
  if (!(how.exact ?? exactIntervals(n, table.pairs.first.length, table.outcomeKeys.length))) {
    solver.diagonalSandwich(sandwich, model);
    return { sandwich, model };
  }
  const c = new Float64Array(n + K);
  const u = new Float64Array(n + K);
  sandwich.fill(NaN);
  model.fill(NaN);
  for (const i of how.agents ?? Array.from({ length: n }, (_, k) => k)) {
    c.fill(-1 / n, 0, n);
    c[i]! += 1;
    solver.solveLinear(c, u);
    sandwich[i] = solver.meatAlong(u);
    let along = 0;
    for (let k = 0; k < n; k++) along += c[k]! * u[k]!;
    model[i] = along;
  }
  return { sandwich, model };
}

/** Each coefficient's robust interval, exactly: one linear solve per coefficient. */
function coefficientIntervals(
  solver: StyleControlledSolver,
  fitted: Float64Array,
  n: number,
  K: number,
  confidence: number,
): Bounds {
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const unit = new Float64Array(n + K);
  const u = new Float64Array(n + K);
  const low = new Float64Array(K);
  const high = new Float64Array(K);
  for (let k = 0; k < K; k++) {
    unit.fill(0);
    unit[n + k] = 1;
    solver.solveLinear(unit, u);
    // As for the strengths: the sandwich, never below the model's own variance, (H⁻¹)ₖₖ.
    const half = z * sqrt(Math.max(solver.meatAlong(u), u[n + k]!));
    low[k] = fitted[n + k]! - half;
    high[k] = fitted[n + k]! + half;
  }
  return { low, high };
}

/** The bootstrap's refits (as the raw board draws them), for `--bootstrap`: each resample's ratings and coefficients. */
function bootstrapSamples(
  table: VoteTable,
  solver: StyleControlledSolver,
  fitted: Float64Array,
  n: number,
  K: number,
  settings: { resamples: number; seed: number; priorSd: number },
): { ratings: Float64Array; coefficients: Float64Array } {
  const { resamples, seed, priorSd } = settings;
  const random = mulberry32(seed);
  const priorDraw = standardNormal(mulberry32((seed ^ PRIOR_STREAM) >>> 0));
  const priorSdNats = priorSd / ELO_PER_NAT;
  const times = new Int32Array(table.outcomeKeys.length);
  const center = new Float64Array(n);
  const point = new Float64Array(n + K);
  const ratings = new Float64Array(resamples * n);
  const coefficients = new Float64Array(resamples * K);
  const resampledRatings = new Float64Array(n);
  for (let r = 0; r < resamples; r++) {
    drawResample(table, random, times);
    for (let i = 0; i < n; i++) center[i] = priorSdNats * priorDraw();
    point.set(fitted);
    solver.solve(times, point, center);
    ratings.set(toRatings(point.subarray(0, n), resampledRatings), r * n);
    coefficients.set(point.subarray(n), r * K);
  }
  return { ratings, coefficients };
}
