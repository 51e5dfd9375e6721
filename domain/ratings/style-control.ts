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
 * to add up, per pair, the curvature and the curvature-weighted covariates; the conjugate-gradient
 * products then pass over the pairs only, as in the raw fit.
 */
import { CG_FLOOR, CG_LOOSEST, EXPONENT_CAP, FIRST_REACH, SAFE_GAP_MOVE, largestMagnitude, limitMoves } from './bt-fit';
import { ELO_SCALE, INITIAL_ELO } from './elo';
import { mulberry32, standardNormal } from './random';
import { drawResample, tabulateVotes, type BattleVote, type VoteTable } from './vote-table';
import { percentile, type LeaderboardEntry } from './bradley-terry';

// Bound once: inside a vm context (Temporal's workflow sandbox, jest) every global lookup such
// as `Math.exp` goes through the context's interceptors, which is slow in a hot loop.
const { abs, exp, floor, log1p, max, min, sqrt } = Math;

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
/**
 * Precision of a Gaussian prior on each coefficient, in log-odds: a ridge so weak (a standard
 * deviation of 30) that it only keeps a feature no vote varies (every answer without a header,
 * say) at zero instead of undetermined.
 */
const COEFFICIENT_PRECISION = 1e-3;

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
 * Fits strengths and coefficients together by Newton's method. The unknowns are one vector:
 * the n log-strengths, then the K coefficients. Holds its work arrays, so the bootstrap's
 * refits allocate nothing.
 */
class StyleControlledSolver {
  private readonly n: number;
  private readonly K: number;
  private readonly size: number;
  /** Per vote position: its pair, and the pair's first agent's score (1, 0, or ½ for a draw). */
  private readonly votePair: Int32Array;
  private readonly voteScore: Float64Array;
  private readonly zeroCenter: Float64Array;
  private readonly gradient: Float64Array;
  /** Per agent, the diagonal of the negated Hessian. */
  private readonly curvature: Float64Array;
  /** Per pair, its votes' curvature, and their curvature-weighted covariates (pairs × K). */
  private readonly pairWeight: Float64Array;
  private readonly pairCovariates: Float64Array;
  /** The coefficients' block of the negated Hessian, and its Cholesky factor. */
  private readonly coefficientBlock: Float64Array;
  private readonly coefficientFactor: Float64Array;
  private readonly step: Float64Array;
  private readonly residual: Float64Array;
  private readonly preconditioned: Float64Array;
  private readonly direction: Float64Array;
  private readonly product: Float64Array;
  private readonly reach: Float64Array;
  private readonly lastMove: Float64Array;
  private readonly trial: Float64Array;
  /** The largest magnitude of each covariate over the votes, to bound how far a step moves a vote's gap. */
  private readonly covariateBound: Float64Array;

  constructor(
    private readonly table: VoteTable,
    private readonly x: Float64Array,
    K: number,
    private readonly options: { priorPrecision: number; tolerance: number; maxIterations: number },
  ) {
    const n = table.agentIds.length;
    const P = table.pairs.first.length;
    const V = table.outcomeKeys.length;
    this.n = n;
    this.K = K;
    this.size = n + K;
    this.votePair = new Int32Array(V);
    this.voteScore = new Float64Array(V);
    for (let v = 0; v < V; v++) {
      const key = table.outcomeKeys[v]!;
      const pair = floor(key / 3);
      const kind = key - 3 * pair;
      this.votePair[v] = pair;
      // The vote table's kinds: 0 the first agent won, 1 the second, 2 a draw.
      this.voteScore[v] = kind === 0 ? 1 : kind === 1 ? 0 : 0.5;
    }
    this.zeroCenter = new Float64Array(n);
    this.gradient = new Float64Array(n + K);
    this.curvature = new Float64Array(n);
    this.pairWeight = new Float64Array(P);
    this.pairCovariates = new Float64Array(P * K);
    this.coefficientBlock = new Float64Array(K * K);
    this.coefficientFactor = new Float64Array(K * K);
    this.step = new Float64Array(n + K);
    this.residual = new Float64Array(n + K);
    this.preconditioned = new Float64Array(n + K);
    this.direction = new Float64Array(n + K);
    this.product = new Float64Array(n + K);
    this.reach = new Float64Array(n + K);
    this.lastMove = new Float64Array(n + K);
    this.trial = new Float64Array(n + K);
    this.covariateBound = new Float64Array(K);
    for (let v = 0; v < V; v++)
      for (let k = 0; k < K; k++) this.covariateBound[k] = max(this.covariateBound[k]!, abs(x[v * K + k]!));
  }

  /**
   * Maximises the penalised log-likelihood, counting the vote at each position `times[position]`
   * times. `point` holds the starting strengths and coefficients and receives the result;
   * `center` is where each strength's prior is centred.
   */
  solve(times: Int32Array, point: Float64Array, center: Float64Array = this.zeroCenter): boolean {
    const { size, step, reach, lastMove, trial, gradient } = this;
    const { maxIterations, tolerance } = this.options;
    reach.fill(FIRST_REACH);
    lastMove.fill(0);
    this.evaluate(times, point, center);
    for (let iteration = 1; iteration <= maxIterations; iteration++) {
      this.solveNewtonStep(tolerance);
      if (largestMagnitude(step, size) < tolerance) {
        for (let i = 0; i < size; i++) point[i]! += step[i]!;
        return true;
      }
      let limited = limitMoves(step, reach, lastMove, size);
      if (limited && !(dotProduct(gradient, step, size) > 0)) {
        // Limiting broke the step's ascent; the gradient scaled by the diagonal, limited alike, has it.
        for (let i = 0; i < size; i++) {
          const move = gradient[i]! / this.diagonal(i);
          step[i] = move > reach[i]! ? reach[i]! : move < -reach[i]! ? -reach[i]! : move;
        }
        limited = true;
      }
      // As in the raw fit: near the optimum a full Newton step rises enough, and there a
      // difference of two totals over many votes would be lost to rounding; far from it, halve.
      let length = 1;
      if (limited || this.gapMoveBound() > SAFE_GAP_MOVE) {
        const slope = dotProduct(gradient, step, size);
        const before = this.objective(times, point, center);
        for (let halvings = 0; halvings < 40; halvings++) {
          for (let i = 0; i < size; i++) trial[i] = point[i]! + length * step[i]!;
          if (this.objective(times, trial, center) - before >= 1e-4 * length * slope) break;
          length /= 2;
        }
      }
      for (let i = 0; i < size; i++) {
        point[i]! += length * step[i]!;
        lastMove[i] = step[i]!;
      }
      if (length * largestMagnitude(step, size) < tolerance) return true;
      this.evaluate(times, point, center);
    }
    return false;
  }

  private diagonal(i: number): number {
    return i < this.n ? this.curvature[i]! : this.coefficientBlock[(i - this.n) * (this.K + 1)]!;
  }

  /** The most the step can move any vote's gap: each strength's move counts twice, each coefficient's by its covariate's bound. */
  private gapMoveBound(): number {
    let bound = 2 * largestMagnitude(this.step, this.n);
    for (let k = 0; k < this.K; k++) bound += abs(this.step[this.n + k]!) * this.covariateBound[k]!;
    return bound;
  }

  /** The gap of the vote at `position` (its pair's first agent against its second) at `point`. */
  private gap(point: Float64Array, position: number): number {
    const { n, K, x } = this;
    const pair = this.votePair[position]!;
    let g = point[this.table.pairs.first[pair]!]! - point[this.table.pairs.second[pair]!]!;
    for (let k = 0; k < K; k++) g += point[n + k]! * x[position * K + k]!;
    return max(-EXPONENT_CAP, min(EXPONENT_CAP, g));
  }

  /** The penalised log-likelihood at `point`. */
  private objective(times: Int32Array, point: Float64Array, center: Float64Array): number {
    const { n, K } = this;
    let total = 0;
    for (let i = 0; i < n; i++) total -= 0.5 * this.options.priorPrecision * (point[i]! - center[i]!) ** 2;
    for (let k = 0; k < K; k++) total -= 0.5 * COEFFICIENT_PRECISION * point[n + k]! ** 2;
    for (let v = 0; v < times.length; v++) {
      const c = times[v]!;
      if (c === 0) continue;
      const g = this.gap(point, v);
      // s·log σ(g) + (1 - s)·log σ(-g) = s·g - log(1 + e^g), kept finite for either sign of g.
      const softplus = g > 0 ? g + log1p(exp(-g)) : log1p(exp(g));
      total += c * (this.voteScore[v]! * g - softplus);
    }
    return total;
  }

  /** The gradient at `point` and the negated Hessian there, added up per agent, per pair and for the coefficients. */
  private evaluate(times: Int32Array, point: Float64Array, center: Float64Array): void {
    const { n, K, x, gradient, curvature, pairWeight, pairCovariates, coefficientBlock } = this;
    const { first, second } = this.table.pairs;
    const precision = this.options.priorPrecision;
    for (let i = 0; i < n; i++) {
      gradient[i] = -precision * (point[i]! - center[i]!);
      curvature[i] = precision;
    }
    coefficientBlock.fill(0);
    for (let k = 0; k < K; k++) {
      gradient[n + k] = -COEFFICIENT_PRECISION * point[n + k]!;
      coefficientBlock[k * K + k] = COEFFICIENT_PRECISION;
    }
    pairWeight.fill(0);
    pairCovariates.fill(0);
    for (let v = 0; v < times.length; v++) {
      const c = times[v]!;
      if (c === 0) continue;
      const pair = this.votePair[v]!;
      const odds = exp(-this.gap(point, v));
      const chance = 1 / (1 + odds);
      const surprise = c * (this.voteScore[v]! - chance);
      const w = c * odds * chance * chance;
      const i = first[pair]!;
      const j = second[pair]!;
      gradient[i]! += surprise;
      gradient[j]! -= surprise;
      curvature[i]! += w;
      curvature[j]! += w;
      pairWeight[pair]! += w;
      const row = v * K;
      for (let k = 0; k < K; k++) {
        const xk = x[row + k]!;
        gradient[n + k]! += surprise * xk;
        pairCovariates[pair * K + k]! += w * xk;
        for (let l = 0; l <= k; l++) coefficientBlock[k * K + l]! += w * xk * x[row + l]!;
      }
    }
    for (let k = 0; k < K; k++) for (let l = 0; l < k; l++) coefficientBlock[l * K + k] = coefficientBlock[k * K + l]!;
    cholesky(coefficientBlock, K, this.coefficientFactor);
  }

  /**
   * Solves H·step = gradient by conjugate gradients, preconditioned block by block: each strength
   * by its curvature, the coefficients by their own block, solved exactly. As in the raw fit,
   * shifting every strength alike changes only the prior's term (the coefficients see only
   * differences), so that direction is solved in closed form and CG works on the rest.
   */
  private solveNewtonStep(tolerance: number): void {
    const { n, size, gradient, step, residual, direction, product, preconditioned } = this;
    let meanGradient = 0;
    for (let i = 0; i < n; i++) meanGradient += gradient[i]!;
    meanGradient /= n;
    for (let i = 0; i < size; i++) {
      residual[i] = i < n ? gradient[i]! - meanGradient : gradient[i]!;
      step[i] = 0;
    }
    let residualNorm = this.precondition();
    let remaining = largestMagnitude(preconditioned, size);
    const target = max(min(CG_LOOSEST, remaining) * remaining, CG_FLOOR * tolerance);
    direction.set(preconditioned);
    for (let round = 0; round < size && remaining > target; round++) {
      this.multiplyHessian(direction, product);
      const curvatureAlong = dotProduct(direction, product, size);
      if (!(curvatureAlong > 0)) break;
      const length = residualNorm / curvatureAlong;
      for (let i = 0; i < size; i++) {
        step[i]! += length * direction[i]!;
        residual[i]! -= length * product[i]!;
      }
      const nextNorm = this.precondition();
      remaining = largestMagnitude(preconditioned, size);
      const keep = nextNorm / residualNorm;
      residualNorm = nextNorm;
      for (let i = 0; i < size; i++) direction[i] = preconditioned[i]! + keep * direction[i]!;
    }
    const shift = meanGradient / this.options.priorPrecision;
    for (let i = 0; i < n; i++) step[i]! += shift;
  }

  /** The preconditioned residual, its strengths projected back to mean zero; returns its dot product with the residual. */
  private precondition(): number {
    const { n, K, size, residual, curvature, preconditioned } = this;
    let mean = 0;
    for (let i = 0; i < n; i++) {
      preconditioned[i] = residual[i]! / curvature[i]!;
      mean += preconditioned[i]!;
    }
    mean /= n;
    for (let i = 0; i < n; i++) preconditioned[i]! -= mean;
    choleskySolve(this.coefficientFactor, K, residual, n, preconditioned);
    return dotProduct(residual, preconditioned, size);
  }

  /** out = H·v: the prior and the coefficients' block, then one pass over the pairs for the rest. */
  private multiplyHessian(v: Float64Array, out: Float64Array): void {
    const { n, K, pairWeight, pairCovariates, coefficientBlock } = this;
    const { first, second } = this.table.pairs;
    for (let i = 0; i < n; i++) out[i] = this.options.priorPrecision * v[i]!;
    for (let k = 0; k < K; k++) {
      let sum = 0;
      for (let l = 0; l < K; l++) sum += coefficientBlock[k * K + l]! * v[n + l]!;
      out[n + k] = sum;
    }
    for (let p = 0; p < pairWeight.length; p++) {
      const w = pairWeight[p]!;
      if (w === 0) continue;
      const i = first[p]!;
      const j = second[p]!;
      const gap = v[i]! - v[j]!;
      let along = w * gap;
      for (let k = 0; k < K; k++) {
        const covariate = pairCovariates[p * K + k]!;
        along += covariate * v[n + k]!;
        out[n + k]! += covariate * gap;
      }
      out[i]! += along;
      out[j]! -= along;
    }
  }
}

/** The lower Cholesky factor of the symmetric positive definite K × K matrix `a`, into `factor`. */
function cholesky(a: Float64Array, K: number, factor: Float64Array): void {
  factor.fill(0);
  for (let i = 0; i < K; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i * K + j]!;
      for (let k = 0; k < j; k++) sum -= factor[i * K + k]! * factor[j * K + k]!;
      factor[i * K + j] = i === j ? sqrt(sum) : sum / factor[j * K + j]!;
    }
  }
}

/** Solves (L·Lᵀ)·y = b for the K entries of `b` from `offset`, writing y into `out` at the same offset. */
function choleskySolve(factor: Float64Array, K: number, b: Float64Array, offset: number, out: Float64Array): void {
  for (let i = 0; i < K; i++) {
    let sum = b[offset + i]!;
    for (let k = 0; k < i; k++) sum -= factor[i * K + k]! * out[offset + k]!;
    out[offset + i] = sum / factor[i * K + i]!;
  }
  for (let i = K - 1; i >= 0; i--) {
    let sum = out[offset + i]!;
    for (let k = i + 1; k < K; k++) sum -= factor[k * K + i]! * out[offset + k]!;
    out[offset + i] = sum / factor[i * K + i]!;
  }
}

function dotProduct(x: Float64Array, y: Float64Array, size: number): number {
  let sum = 0;
  for (let i = 0; i < size; i++) sum += x[i]! * y[i]!;
  return sum;
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
  const resamples = options.resamples ?? 100;
  const confidence = options.confidence ?? 0.95;
  const priorSd = options.priorSd ?? 1000;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError('resamples must be a positive integer');
  if (!(confidence > 0 && confidence < 1)) throw new RangeError('confidence must be between 0 and 1');
  if (!(priorSd > 0)) throw new RangeError('priorSd must be positive');
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
  const ratings = toRatings(fitted, n);

  const seed = options.seed ?? 1;
  const random = mulberry32(seed);
  const priorDraw = standardNormal(mulberry32((seed ^ PRIOR_STREAM) >>> 0));
  const priorSdNats = priorSd / ELO_PER_NAT;
  const center = new Float64Array(n);
  const point = new Float64Array(n + K);
  const ratingSamples = new Float64Array(resamples * n);
  const coefficientSamples = new Float64Array(resamples * K);
  for (let r = 0; r < resamples; r++) {
    drawResample(table, random, times);
    for (let i = 0; i < n; i++) center[i] = priorSdNats * priorDraw();
    point.set(fitted);
    solver.solve(times, point, center);
    ratingSamples.set(toRatings(point, n), r * n);
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

/** The first n entries (the strengths) on the Elo scale, with mean 1500. */
function toRatings(point: Float64Array, n: number): Float64Array {
  let mean = 0;
  for (let i = 0; i < n; i++) mean += point[i]!;
  mean /= n;
  return Float64Array.from(point.subarray(0, n), (value) => INITIAL_ELO + (value - mean) * ELO_PER_NAT);
}
