/**
 * The conjugate-gradient solve both rating solvers share (bt-fit.ts, style-control-solver.ts):
 * H·x = r on the strengths, with r of mean zero, preconditioned by H's diagonal and kept off the
 * all-equal direction (which only the prior pins, and which the callers solve in closed form).
 */

// Bound once: inside a vm context every global lookup such as `Math.abs` is slow in a hot loop.
const { abs, max, min } = Math;

/** A CG solve stops once its preconditioned residual is this fraction of the Newton tolerance: finer is below what the stopping rule can see. */
export const CG_FLOOR = 1e-3;
/** The CG solve's relative accuracy is never looser than this, however far the optimum. */
export const CG_LOOSEST = 0.1;

export function dot(x: Float64Array, y: Float64Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += x[i]! * y[i]!;
  return sum;
}

export function largestMagnitude(values: Float64Array, n: number): number {
  let largest = 0;
  for (let i = 0; i < n; i++) largest = max(largest, abs(values[i]!));
  return largest;
}

/** The system: its size, its diagonal (the preconditioner) and a product with it. */
export interface LinearSystem {
  n: number;
  diagonal: Float64Array;
  /** out = H·v. */
  multiply(v: Float64Array, out: Float64Array): void;
}

/** Work arrays of n entries each, held by the caller so that repeated solves allocate nothing. */
export interface ConjugateGradientWork {
  preconditioned: Float64Array;
  direction: Float64Array;
  product: Float64Array;
}

/**
 * How far a solve goes: the inexact Newton forcing term (relative accuracy that tightens as the
 * step shrinks, never finer than CG_FLOOR of the tolerance), or a fixed relative accuracy for a
 * linear solve of its own (the intervals').
 */
export function solveLimit(initial: number, tolerance: number, relative?: number): number {
  return relative === undefined ? max(min(CG_LOOSEST, initial) * initial, CG_FLOOR * tolerance) : relative * initial;
}

/**
 * Adds to `x` the solution of H·x = residual (mean zero), by conjugate gradients; `residual` is
 * consumed. Stops once the preconditioned residual's largest entry is below `limitOf(its start)`,
 * or after n rounds.
 */
export function conjugateGradient(
  system: LinearSystem,
  residual: Float64Array,
  x: Float64Array,
  work: ConjugateGradientWork,
  limitOf: (initial: number) => number,
): void {
  const { n } = system;
  const { preconditioned, direction, product } = work;
  let residualNorm = precondition(system, residual, preconditioned);
  let remaining = largestMagnitude(preconditioned, n);
  const limit = limitOf(remaining);
  direction.set(preconditioned);
  for (let round = 0; round < n && remaining > limit; round++) {
    system.multiply(direction, product);
    const curvatureAlong = dot(direction, product, n);
    if (!(curvatureAlong > 0)) break;
    const length = residualNorm / curvatureAlong;
    for (let i = 0; i < n; i++) {
      x[i]! += length * direction[i]!;
      residual[i]! -= length * product[i]!;
    }
    const nextNorm = precondition(system, residual, preconditioned);
    remaining = largestMagnitude(preconditioned, n);
    const keep = nextNorm / residualNorm;
    residualNorm = nextNorm;
    for (let i = 0; i < n; i++) direction[i] = preconditioned[i]! + keep * direction[i]!;
  }
}

/**
 * The preconditioned residual: divided by H's diagonal, then projected back to mean zero so that
 * CG stays off the all-equal direction. Returns its dot product with the residual.
 */
function precondition(system: LinearSystem, residual: Float64Array, out: Float64Array): number {
  const { n, diagonal } = system;
  let mean = 0;
  for (let i = 0; i < n; i++) {
    out[i] = residual[i]! / diagonal[i]!;
    mean += out[i]!;
  }
  mean /= n;
  for (let i = 0; i < n; i++) out[i]! -= mean;
  return dot(residual, out, n);
}
