/**
 * The leaderboard's former solver, kept as the tests' reference: damped Newton's method with the
 * dense n×n Hessian factorised by Cholesky. Exact and simple, but n² memory and n³ time per step.
 */

import type { PairIndex, SolveReport, SolverOptions } from '../../../domain/ratings/bt-fit';

// Bound once: inside a vm context (Temporal's workflow sandbox, jest) every global lookup such
// as `Math.exp` goes through the context's interceptors, which is slow in a hot loop.
const { abs, exp, log1p, max, sqrt } = Math;

// Every typed-array index below is in range by construction (vectors of length n, an n·n
// matrix, pair indices below n), so reads carry `!` rather than a check in the inner loops.

export class DenseNewtonSolver {
  private readonly n: number;
  private readonly hessian: Float64Array;
  private readonly gradient: Float64Array;
  private readonly step: Float64Array;
  private readonly trial: Float64Array;
  private readonly zeroCenter: Float64Array;

  constructor(
    private readonly pairs: PairIndex,
    private readonly options: SolverOptions,
  ) {
    this.n = pairs.agentCount;
    this.hessian = new Float64Array(this.n * this.n);
    this.gradient = new Float64Array(this.n);
    this.step = new Float64Array(this.n);
    this.trial = new Float64Array(this.n);
    this.zeroCenter = new Float64Array(this.n);
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
    let current = this.objective(score, games, theta, priorCenter);
    for (let iteration = 1; iteration <= maxIterations; iteration++) {
      this.buildNewtonSystem(score, games, theta, priorCenter);
      if (!choleskyInPlace(this.hessian, this.n)) return { iterations: iteration, converged: false };
      this.step.set(this.gradient);
      choleskySolveInPlace(this.hessian, this.n, this.step);

      let slope = 0;
      let largestMove = 0;
      for (let i = 0; i < this.n; i++) {
        slope += this.gradient[i]! * this.step[i]!;
        largestMove = max(largestMove, abs(this.step[i]!));
      }
      if (largestMove < tolerance) {
        // Close enough that the objective cannot tell steps apart: take the Newton step as is.
        for (let i = 0; i < this.n; i++) theta[i]! += this.step[i]!;
        return { iterations: iteration, converged: true };
      }
      // Backtracking keeps every step uphill; far from the optimum a full step can overshoot.
      let length = 1;
      let next = current;
      for (let halvings = 0; halvings < 40; halvings++) {
        for (let i = 0; i < this.n; i++) this.trial[i] = theta[i]! + length * this.step[i]!;
        next = this.objective(score, games, this.trial, priorCenter);
        if (next >= current + 1e-4 * length * slope) break;
        length /= 2;
      }
      theta.set(this.trial);
      current = next;
      if (length * largestMove < tolerance) return { iterations: iteration, converged: true };
    }
    return { iterations: maxIterations, converged: false };
  }

  private objective(score: Float64Array, games: Float64Array, theta: Float64Array, center: Float64Array): number {
    const { first, second } = this.pairs;
    let total = 0;
    for (let p = 0; p < first.length; p++) {
      if (games[p] === 0) continue;
      const gap = theta[first[p]!]! - theta[second[p]!]!;
      // s·log σ(g) + (n - s)·log σ(-g), using log σ(-g) = log σ(g) - g to save a logarithm.
      total += games[p]! * logSigmoid(gap) - (games[p]! - score[p]!) * gap;
    }
    let penalty = 0;
    for (let i = 0; i < this.n; i++) {
      const offset = theta[i]! - center[i]!;
      penalty += offset * offset;
    }
    return total - 0.5 * this.options.priorPrecision * penalty;
  }

  /** Gradient of the objective, and the negated Hessian (positive definite thanks to the prior). */
  private buildNewtonSystem(score: Float64Array, games: Float64Array, theta: Float64Array, center: Float64Array): void {
    const { first, second } = this.pairs;
    const { n, hessian, gradient } = this;
    const precision = this.options.priorPrecision;
    hessian.fill(0);
    for (let i = 0; i < n; i++) {
      gradient[i] = -precision * (theta[i]! - center[i]!);
      hessian[i * n + i] = precision;
    }
    for (let p = 0; p < first.length; p++) {
      if (games[p] === 0) continue;
      const i = first[p]!;
      const j = second[p]!;
      const chance = 1 / (1 + exp(theta[j]! - theta[i]!));
      const surprise = score[p]! - games[p]! * chance;
      gradient[i]! += surprise;
      gradient[j]! -= surprise;
      const weight = games[p]! * chance * (1 - chance);
      hessian[i * n + i]! += weight;
      hessian[j * n + j]! += weight;
      hessian[i * n + j]! -= weight;
      hessian[j * n + i]! -= weight;
    }
  }
}

function logSigmoid(x: number): number {
  return x >= 0 ? -log1p(exp(-x)) : x - log1p(exp(x));
}

/** Overwrites the lower triangle with L where A = L·Lᵀ; false if A is not positive definite. */
function choleskyInPlace(a: Float64Array, n: number): boolean {
  for (let j = 0; j < n; j++) {
    const rowJ = j * n;
    let diagonal = a[rowJ + j]!;
    for (let k = 0; k < j; k++) diagonal -= a[rowJ + k]! * a[rowJ + k]!;
    if (!(diagonal > 0)) return false;
    const pivot = sqrt(diagonal);
    a[rowJ + j] = pivot;
    for (let rowI = rowJ + n; rowI < n * n; rowI += n) {
      let sum = a[rowI + j]!;
      for (let k = 0; k < j; k++) sum -= a[rowI + k]! * a[rowJ + k]!;
      a[rowI + j] = sum / pivot;
    }
  }
  return true;
}

/** Solves L·Lᵀ·x = b with the factor from `choleskyInPlace`; b is replaced by x. */
function choleskySolveInPlace(l: Float64Array, n: number, b: Float64Array): void {
  for (let i = 0; i < n; i++) {
    const rowI = i * n;
    let sum = b[i]!;
    for (let k = 0; k < i; k++) sum -= l[rowI + k]! * b[k]!;
    b[i] = sum / l[rowI + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let sum = b[i]!;
    for (let k = i + 1; k < n; k++) sum -= l[k * n + i]! * b[k]!;
    b[i] = sum / l[i * n + i]!;
  }
}
