/** The Bradley-Terry solver: log-strengths from aggregated pair results, by Newton's method with conjugate-gradient steps. */

/**
 * Why Newton with a Gaussian prior rather than Hunter's MM iteration: MM converges linearly and
 * crawls when strengths are far apart, and the plain likelihood has no finite maximum when an
 * agent won (or lost) every game. A small L2 prior on the log-strengths makes the objective
 * strictly concave with one finite optimum whatever the data (unseen or unbeaten agents
 * included), and Newton then reaches it in a handful of steps; from a warm start (a bootstrap
 * resample starts at the full-data fit) about six at the default tolerance.
 *
 * Why conjugate gradients rather than factorising the Hessian: with thousands of agents the
 * dense n×n Hessian no longer fits (800 MB at 10,000 agents) and factorising it costs n³/3 per
 * step. The Hessian is a weighted graph Laplacian (one weight per pair that met) plus the
 * prior's diagonal, so a product with it costs one pass over the pairs, and CG preconditioned
 * by the diagonal needs a few such products per Newton step when the agents are well mixed
 * (more when the arena splits into groups that seldom meet). Memory and time per step grow
 * with the pairs that met, not with n². Each CG solve is only as exact as the Newton step needs
 * (an inexact Newton method): loose far from the optimum, tight near it, which keeps the
 * quadratic convergence and the step-size stopping rule of the exact method.
 */

// Bound once: inside a vm context (Temporal's workflow sandbox, jest) every global lookup such
// as `Math.exp` goes through the context's interceptors, which is slow in a hot loop.
const { abs, exp, expm1, log1p, max, min } = Math;

import {
  conjugateGradient,
  dot,
  largestMagnitude,
  solveLimit,
  type ConjugateGradientWork,
  type LinearSystem,
} from './conjugate-gradient';

// Every typed-array index below is in range by construction (vectors of length n, pair arrays
// of the pair count, pair indices below n), so reads carry `!` rather than a check in the loops.

/** The pairs that met at least once, as agent indices (first < second). */
export interface PairIndex {
  agentCount: number;
  first: Int32Array;
  second: Int32Array;
}

export interface SolverOptions {
  /** Precision (1 / variance) of the prior on each natural-log strength. */
  priorPrecision: number;
  /** Stop once no log-strength moves by more than this in a step. */
  tolerance: number;
  maxIterations: number;
}

export interface SolveReport {
  iterations: number;
  converged: boolean;
}

/**
 * A full Newton step under which no pair's gap moves by more than this needs no line search.
 * Along the step each pair's curvature σ(g)·σ(-g) changes by at most a factor e^(M·t), M being
 * the largest gap move (its derivative, σ(g)·σ(-g)·(1 - 2σ(g)), is no larger than itself), and
 * a CG step s satisfies sᵀHs = gᵀs (CG's iterates are exact on the Krylov space they span);
 * so the objective rises by at least gᵀs·(1 - (e^M - 1 - M)/M²), over a quarter of gᵀs for
 * M ≤ 1, far more than the line search's 1e-4·gᵀs.
 */
export const SAFE_GAP_MOVE = 1;
/** An agent's reach (see `limitMoves`) at the start of a fit, and the least it shrinks to, in log-strength units. */
export const FIRST_REACH = 2;
const SMALLEST_REACH = 0.5;
/** How far a linear solve for the intervals takes its residual down: far below what an interval shows. */
export const LINEAR_ACCURACY = 1e-10;
/** Below ln(Number.MAX_VALUE), so e^x stays finite. */
export const EXPONENT_CAP = 700;

/** Holds its work arrays, so repeated fits (bootstrap resamples) allocate nothing. */
export class BradleyTerrySolver {
  private readonly n: number;
  private readonly zeroCenter: Float64Array;
  // Per agent: the objective's gradient, the diagonal of the negated Hessian, the Newton step,
  // and the CG solve's residual and work arrays.
  private readonly gradient: Float64Array;
  private readonly curvature: Float64Array;
  private readonly step: Float64Array;
  private readonly residual: Float64Array;
  private readonly work: ConjugateGradientWork;
  // Per agent: how far it may move in one step, and its last move (see `limitMoves`).
  private readonly reach: Float64Array;
  private readonly lastMove: Float64Array;
  // The pairs with games in the current fit (a resample leaves about a third out), packed so
  // that every pass skips the rest, with each pair's Hessian weight and chance of an upset (the
  // second agent winning) at the current point.
  private readonly activeFirst: Int32Array;
  private readonly activeSecond: Int32Array;
  private readonly activeScore: Float64Array;
  private readonly activeGames: Float64Array;
  private readonly activeWeight: Float64Array;
  private readonly activeUpset: Float64Array;
  private activeCount = 0;
  /** H at the last evaluated point, for the shared CG: its diagonal is `curvature`. */
  private readonly system: LinearSystem;

  constructor(
    private readonly pairs: PairIndex,
    private readonly options: SolverOptions,
  ) {
    const n = pairs.agentCount;
    const pairCount = pairs.first.length;
    this.n = n;
    this.zeroCenter = new Float64Array(n);
    this.gradient = new Float64Array(n);
    this.curvature = new Float64Array(n);
    this.step = new Float64Array(n);
    this.residual = new Float64Array(n);
    this.work = { preconditioned: new Float64Array(n), direction: new Float64Array(n), product: new Float64Array(n) };
    this.reach = new Float64Array(n);
    this.lastMove = new Float64Array(n);
    this.activeFirst = new Int32Array(pairCount);
    this.activeSecond = new Int32Array(pairCount);
    this.activeScore = new Float64Array(pairCount);
    this.activeGames = new Float64Array(pairCount);
    this.activeWeight = new Float64Array(pairCount);
    this.activeUpset = new Float64Array(pairCount);
    this.system = { n, diagonal: this.curvature, multiply: (v, out) => this.multiplyHessian(v, out) };
  }

  /**
   * Maximises the penalised log-likelihood. `score[p]` is what the pair's first agent scored
   * (wins + half the draws) out of `games[p]`. `theta` holds the starting point and receives
   * the result, in natural-log units. `priorCenter` is where the prior is centred for each
   * agent (zero unless given; a bootstrap resample draws it from the prior itself). The prior
   * also fixes the scale's origin: at the optimum the log-strengths sum to the centres' sum,
   * because the likelihood alone does not change under a shift.
   */
  solve(
    score: Float64Array,
    games: Float64Array,
    theta: Float64Array,
    priorCenter: Float64Array = this.zeroCenter,
  ): SolveReport {
    const { maxIterations, tolerance } = this.options;
    const { n, gradient, curvature, step, reach, lastMove } = this;
    this.packActivePairs(score, games);
    reach.fill(FIRST_REACH);
    lastMove.fill(0);
    this.evaluate(theta, priorCenter);
    for (let iteration = 1; iteration <= maxIterations; iteration++) {
      this.solveNewtonStep(tolerance);
      if (largestMagnitude(step, n) < tolerance) {
        // Below the tolerance: the step is as exact as the fit needs, so take it whole and stop.
        for (let i = 0; i < n; i++) theta[i]! += step[i]!;
        return { iterations: iteration, converged: true };
      }
      let limited = limitMoves(step, reach, lastMove, n);
      if (limited && !(dot(gradient, step, n) > 0)) {
        // Limiting broke the step's ascent; the diagonally scaled gradient, limited alike, has it.
        for (let i = 0; i < n; i++) {
          const move = gradient[i]! / curvature[i]!;
          step[i] = move > reach[i]! ? reach[i]! : move < -reach[i]! ? -reach[i]! : move;
        }
        limited = true;
      }

      let slope = 0;
      let largestMove = 0;
      let stepDotOffset = 0;
      let stepSquared = 0;
      for (let i = 0; i < n; i++) {
        slope += gradient[i]! * step[i]!;
        largestMove = max(largestMove, abs(step[i]!));
        stepDotOffset += step[i]! * (theta[i]! - priorCenter[i]!);
        stepSquared += step[i]! * step[i]!;
      }
      // Backtracking keeps every step uphill; far from the optimum a full step can overshoot.
      // Near it a full Newton step provably rises enough (see SAFE_GAP_MOVE): no check needed.
      let length = 1;
      if (limited || this.largestGapMove(largestMove) > SAFE_GAP_MOVE) {
        for (let halvings = 0; halvings < 40; halvings++) {
          if (this.gain(length, stepDotOffset, stepSquared) >= 1e-4 * length * slope) break;
          length /= 2;
        }
      }
      for (let i = 0; i < n; i++) {
        theta[i]! += length * step[i]!;
        lastMove[i] = step[i]!;
      }
      if (length * largestMove < tolerance) return { iterations: iteration, converged: true };
      this.evaluate(theta, priorCenter);
    }
    return { iterations: maxIterations, converged: false };
  }

  private packActivePairs(score: Float64Array, games: Float64Array): void {
    const { first, second } = this.pairs;
    const { activeFirst, activeSecond, activeScore, activeGames } = this;
    let count = 0;
    for (let p = 0; p < first.length; p++) {
      if (!(games[p]! > 0)) continue;
      activeFirst[count] = first[p]!;
      activeSecond[count] = second[p]!;
      activeScore[count] = score[p]!;
      activeGames[count] = games[p]!;
      count++;
    }
    this.activeCount = count;
  }

  /**
   * The gradient at `theta` and the negated Hessian there (each pair's weight and the
   * diagonal, which the prior keeps positive), and each pair's chance of an upset for `gain`.
   */
  private evaluate(theta: Float64Array, center: Float64Array): void {
    const { n, gradient, curvature, activeCount } = this;
    const first = this.activeFirst;
    const second = this.activeSecond;
    const score = this.activeScore;
    const games = this.activeGames;
    const weight = this.activeWeight;
    const upset = this.activeUpset;
    const precision = this.options.priorPrecision;
    for (let i = 0; i < n; i++) {
      gradient[i] = -precision * (theta[i]! - center[i]!);
      curvature[i] = precision;
    }
    for (let p = 0; p < activeCount; p++) {
      const i = first[p]!;
      const j = second[p]!;
      const played = games[p]!;
      // e^-gap, capped where it would overflow: far past any gap the prior lets happen.
      const odds = exp(min(EXPONENT_CAP, theta[j]! - theta[i]!));
      const chance = 1 / (1 + odds);
      // σ(-gap) and σ(gap)·σ(-gap) as products, so that they keep their precision for large gaps.
      const upsetChance = odds * chance;
      upset[p] = upsetChance;
      const surprise = score[p]! - played * chance;
      gradient[i]! += surprise;
      gradient[j]! -= surprise;
      const w = played * upsetChance * chance;
      weight[p] = w;
      curvature[i]! += w;
      curvature[j]! += w;
    }
  }

  /** The largest change in any pair's gap the step makes, or a bound on it when that is small enough. */
  private largestGapMove(largestMove: number): number {
    if (2 * largestMove <= SAFE_GAP_MOVE) return 2 * largestMove;
    const { step, activeCount } = this;
    const first = this.activeFirst;
    const second = this.activeSecond;
    let largest = 0;
    for (let p = 0; p < activeCount; p++) largest = max(largest, abs(step[first[p]!]! - step[second[p]!]!));
    return largest;
  }

  /**
   * How much the objective rises from the last evaluated point to `length` times the step.
   * Summed as differences per pair, log σ(g + d) - log σ(g) = -log1p(σ(-g)·expm1(-d)), rather
   * than as the difference of two totals: near the optimum the rise is far below the rounding
   * error of a total over a million pairs, and the line search would then refuse good steps.
   */
  private gain(length: number, stepDotOffset: number, stepSquared: number): number {
    const { step, activeCount } = this;
    const first = this.activeFirst;
    const second = this.activeSecond;
    const score = this.activeScore;
    const games = this.activeGames;
    const upset = this.activeUpset;
    let total = 0;
    for (let p = 0; p < activeCount; p++) {
      const move = length * (step[first[p]!]! - step[second[p]!]!);
      // s·log σ(g) + (n - s)·log σ(-g) = n·log σ(g) - (n - s)·g.
      total -= games[p]! * log1p(upset[p]! * expm1(-move)) + (games[p]! - score[p]!) * move;
    }
    // The prior's -λ/2·Σ(θ - c)², expanded around the current point.
    return total - this.options.priorPrecision * length * (stepDotOffset + 0.5 * length * stepSquared);
  }

  /**
   * Takes the negated Hessian at `theta`, with the prior centred at zero and the pairs of the
   * last solve, for `solveLinear`: after a fit, the curvature the intervals are built from.
   */
  linearizeAt(theta: Float64Array): void {
    this.evaluate(theta, this.zeroCenter);
  }

  /** Solves H·out = rhs at the point of the last `linearizeAt`, until the preconditioned residual is `relative` of its start. */
  solveLinear(rhs: Float64Array, out: Float64Array, relative = LINEAR_ACCURACY): void {
    this.gradient.set(rhs);
    this.solveNewtonStep(0, relative);
    out.set(this.step);
  }

  /**
   * Solves H·step = gradient for the negated Hessian H at the last evaluated point. Shifting
   * every log-strength alike changes only the prior's term, so the all-equal direction is an
   * exact eigenvector of H with the prior's precision as eigenvalue: that part of the step is
   * solved in closed form, and CG (preconditioned by H's diagonal) works on the rest, where
   * the weak prior no longer makes the system ill-conditioned.
   */
  private solveNewtonStep(tolerance: number, relative?: number): void {
    const { n, gradient, step, residual } = this;
    let meanGradient = 0;
    for (let i = 0; i < n; i++) meanGradient += gradient[i]!;
    meanGradient /= n;
    for (let i = 0; i < n; i++) {
      residual[i] = gradient[i]! - meanGradient;
      step[i] = 0;
    }
    conjugateGradient(this.system, residual, step, this.work, (initial) => solveLimit(initial, tolerance, relative));
    const shift = meanGradient / this.options.priorPrecision;
    for (let i = 0; i < n; i++) step[i]! += shift;
  }

  /** out = H·v, one pass over the pairs: the diagonal, minus each pair's weight across. */
  private multiplyHessian(v: Float64Array, out: Float64Array): void {
    const { n, curvature, activeCount } = this;
    const first = this.activeFirst;
    const second = this.activeSecond;
    const weight = this.activeWeight;
    for (let i = 0; i < n; i++) out[i] = curvature[i]! * v[i]!;
    for (let p = 0; p < activeCount; p++) {
      const i = first[p]!;
      const j = second[p]!;
      const w = weight[p]!;
      out[i]! -= w * v[j]!;
      out[j]! -= w * v[i]!;
    }
  }
}

/**
 * Keeps each agent's move within its reach, a per-agent trust region. One global line search
 * cannot stop a single agent from overshooting: with thousands of agents the others' gains
 * outweigh its loss. Far on the flat side of its results (say a win over a much weaker agent
 * while its prior now sits far lower) an agent's curvature is nearly the prior's alone, and
 * the Newton step flings it tens of log-units past its optimum, then back. Its reach halves
 * when its move turns round and doubles while it keeps going the same way at full reach, so
 * an agent that has far to go (a new prior centre) gets there in a few steps. True when some
 * move was cut.
 */
export function limitMoves(step: Float64Array, reach: Float64Array, lastMove: Float64Array, n: number): boolean {
  let limited = false;
  for (let i = 0; i < n; i++) {
    const move = step[i]!;
    const previous = lastMove[i]!;
    if (move * previous < 0) reach[i] = max(SMALLEST_REACH, reach[i]! / 2);
    else if (abs(previous) >= reach[i]!) reach[i] = 2 * reach[i]!;
    if (abs(move) > reach[i]!) {
      step[i] = move > 0 ? reach[i]! : -reach[i]!;
      limited = true;
    }
  }
  return limited;
}
