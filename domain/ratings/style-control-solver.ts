/**
 * The style-controlled fit's Newton solver (see style-control.ts): strengths and coefficients
 * found together, each Newton system solved with the coefficients eliminated.
 */
import { EXPONENT_CAP, FIRST_REACH, LINEAR_ACCURACY, SAFE_GAP_MOVE, limitMoves } from './bt-fit';
import {
  conjugateGradient,
  dot as dotProduct,
  largestMagnitude,
  solveLimit,
  type ConjugateGradientWork,
  type LinearSystem,
} from './conjugate-gradient';
import type { VoteTable } from './vote-table';

// Bound once: inside a vm context (Temporal's workflow sandbox, jest) every global lookup such
// as `Math.exp` goes through the context's interceptors, which is slow in a hot loop.
const { abs, exp, floor, log1p, max, min, sqrt } = Math;
/** Read once: an imported binding can be a getter, called on every read in a hot loop. */
const CAP = EXPONENT_CAP;

/**
 * Precision of a Gaussian prior on each coefficient, in log-odds: a ridge so weak (a standard
 * deviation of 30) that it only keeps a feature no vote varies (every answer without a header,
 * say) at zero instead of undetermined.
 */
const COEFFICIENT_PRECISION = 1e-3;

/**
 * Fits strengths and coefficients together by Newton's method. The unknowns are one vector:
 * the n log-strengths, then the K coefficients. Holds its work arrays, so the bootstrap's
 * refits allocate nothing.
 */
export class StyleControlledSolver {
  private readonly n: number;
  private readonly K: number;
  private readonly size: number;
  /** Per vote position: its pair, and the pair's first agent's score (1, 0, or ½ for a draw). */
  private readonly votePair: Int32Array;
  private readonly voteScore: Float64Array;
  /**
   * The votes a solve counts (drawn at least once), packed at its start so that every pass runs
   * without a branch on the count: how often each was drawn, its score, its covariates (stored
   * covariate by covariate, each a row of as many entries as the table has votes), its agents,
   * and its pair's index among the packed pairs, whose agents are `pairFirst` and `pairSecond`.
   */
  private activeVotes = 0;
  private readonly activeTimes: Float64Array;
  private readonly activeScore: Float64Array;
  private readonly activeX: Float64Array;
  private readonly activePair: Int32Array;
  private readonly activeFirst: Int32Array;
  private readonly activeSecond: Int32Array;
  /** Per packed vote, scratch: its gap, its curvature and its surprise (score less expected) at the point evaluated. */
  private readonly gaps: Float64Array;
  private readonly weights: Float64Array;
  private readonly surprises: Float64Array;
  private activePairs = 0;
  private readonly pairFirst: Int32Array;
  private readonly pairSecond: Int32Array;
  private readonly zeroCenter: Float64Array;
  private readonly gradient: Float64Array;
  /** Per agent, the diagonal of the negated Hessian. */
  private readonly curvature: Float64Array;
  /** Per packed pair, its votes' curvature. */
  private readonly pairWeight: Float64Array;
  /**
   * The strengths' and coefficients' cross block of the negated Hessian (agents × K): per agent,
   * the curvature-weighted covariates of its votes, added as its pair's first agent and
   * subtracted as its second.
   */
  private readonly coupling: Float64Array;
  /** The diagonal of the strengths' Schur complement (see solveNewtonStep), the CG's preconditioner. */
  private readonly schurDiagonal: Float64Array;
  /** Scratch of K entries. */
  private readonly small: Float64Array;
  private readonly smallSolved: Float64Array;
  /** The coefficients' block of the negated Hessian, and its Cholesky factor. */
  private readonly coefficientBlock: Float64Array;
  private readonly coefficientFactor: Float64Array;
  private readonly step: Float64Array;
  private readonly residual: Float64Array;
  private readonly work: ConjugateGradientWork;
  /** The strengths' Schur complement at the last evaluated point, for the shared CG: its diagonal is `schurDiagonal`. */
  private readonly system: LinearSystem;
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
    this.activeTimes = new Float64Array(V);
    this.activeScore = new Float64Array(V);
    this.activeX = new Float64Array(V * K);
    this.activePair = new Int32Array(V);
    this.activeFirst = new Int32Array(V);
    this.activeSecond = new Int32Array(V);
    this.gaps = new Float64Array(V);
    this.weights = new Float64Array(V);
    this.surprises = new Float64Array(V);
    this.pairFirst = new Int32Array(P);
    this.pairSecond = new Int32Array(P);
    this.pairWeight = new Float64Array(P);
    this.coupling = new Float64Array(n * K);
    this.schurDiagonal = new Float64Array(n);
    this.small = new Float64Array(K);
    this.smallSolved = new Float64Array(K);
    this.coefficientBlock = new Float64Array(K * K);
    this.coefficientFactor = new Float64Array(K * K);
    this.step = new Float64Array(n + K);
    this.residual = new Float64Array(n);
    this.work = { preconditioned: new Float64Array(n), direction: new Float64Array(n), product: new Float64Array(n) };
    this.system = { n, diagonal: this.schurDiagonal, multiply: (v, out) => this.multiplySchur(v, out) };
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
    this.pack(times);
    this.evaluate(point, center);
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
        const before = this.objective(point, center);
        for (let halvings = 0; halvings < 40; halvings++) {
          for (let i = 0; i < size; i++) trial[i] = point[i]! + length * step[i]!;
          if (this.objective(trial, center) - before >= 1e-4 * length * slope) break;
          length /= 2;
        }
      }
      for (let i = 0; i < size; i++) {
        point[i]! += length * step[i]!;
        lastMove[i] = step[i]!;
      }
      if (length * largestMagnitude(step, size) < tolerance) return true;
      this.evaluate(point, center);
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

  /** Packs the votes drawn at least once, and their pairs, for the passes of one solve. */
  private pack(times: Int32Array): void {
    const { K, x, votePair, voteScore, activeTimes, activeScore, activeX, activePair, activeFirst, activeSecond } =
      this;
    const { pairFirst, pairSecond } = this;
    const { first, second } = this.table.pairs;
    const V = times.length;
    let count = 0;
    let pairs = 0;
    let lastPair = -1;
    for (let v = 0; v < V; v++) {
      const c = times[v]!;
      if (c === 0) continue;
      const pair = votePair[v]!;
      // Positions run pair by pair, so a pair's votes are packed together.
      if (pair !== lastPair) {
        pairFirst[pairs] = first[pair]!;
        pairSecond[pairs] = second[pair]!;
        pairs++;
        lastPair = pair;
      }
      activePair[count] = pairs - 1;
      activeFirst[count] = first[pair]!;
      activeSecond[count] = second[pair]!;
      activeTimes[count] = c;
      activeScore[count] = voteScore[v]!;
      for (let k = 0; k < K; k++) activeX[k * V + count] = x[v * K + k]!;
      count++;
    }
    this.activeVotes = count;
    this.activePairs = pairs;
  }

  /** Each packed vote's gap at `point` (its pair's first agent against its second, with its covariates), into `gaps`. */
  private gapsAt(point: Float64Array): void {
    const { n, K, activeVotes, activeX, activeFirst, activeSecond, gaps } = this;
    const V = this.votePair.length;
    for (let v = 0; v < activeVotes; v++) gaps[v] = point[activeFirst[v]!]! - point[activeSecond[v]!]!;
    // Covariate by covariate, over contiguous memory.
    for (let k = 0; k < K; k++) {
      const beta = point[n + k]!;
      const column = k * V;
      for (let v = 0; v < activeVotes; v++) gaps[v]! += beta * activeX[column + v]!;
    }
    for (let v = 0; v < activeVotes; v++) gaps[v] = max(-CAP, min(CAP, gaps[v]!));
  }

  /** The penalised log-likelihood at `point`. */
  private objective(point: Float64Array, center: Float64Array): number {
    const { n, K, activeVotes, activeTimes, activeScore, gaps } = this;
    const precision = this.options.priorPrecision;
    let total = 0;
    for (let i = 0; i < n; i++) total -= 0.5 * precision * (point[i]! - center[i]!) ** 2;
    for (let k = 0; k < K; k++) total -= 0.5 * COEFFICIENT_PRECISION * point[n + k]! ** 2;
    this.gapsAt(point);
    for (let v = 0; v < activeVotes; v++) {
      const g = gaps[v]!;
      // s·log σ(g) + (1 - s)·log σ(-g) = s·g - log(1 + e^g), kept finite for either sign of g.
      const softplus = g > 0 ? g + log1p(exp(-g)) : log1p(exp(g));
      total += activeTimes[v]! * (activeScore[v]! * g - softplus);
    }
    return total;
  }

  /** The gradient at `point` and the negated Hessian there, added up per agent, per pair and for the coefficients. */
  private evaluate(point: Float64Array, center: Float64Array): void {
    const { n, K, gradient, curvature, pairWeight, coupling, coefficientBlock, gaps, weights, surprises } = this;
    const { activeVotes, activeTimes, activeScore, activeX, activePair, activePairs, activeFirst, activeSecond } = this;
    const V = this.votePair.length;
    const precision = this.options.priorPrecision;
    for (let i = 0; i < n; i++) {
      gradient[i] = -precision * (point[i]! - center[i]!);
      curvature[i] = precision;
    }
    pairWeight.fill(0, 0, activePairs);
    this.gapsAt(point);
    for (let v = 0; v < activeVotes; v++) {
      const c = activeTimes[v]!;
      const odds = exp(-gaps[v]!);
      const chance = 1 / (1 + odds);
      const surprise = c * (activeScore[v]! - chance);
      const w = c * odds * chance * chance;
      surprises[v] = surprise;
      weights[v] = w;
      const i = activeFirst[v]!;
      const j = activeSecond[v]!;
      gradient[i]! += surprise;
      gradient[j]! -= surprise;
      curvature[i]! += w;
      curvature[j]! += w;
      pairWeight[activePair[v]!]! += w;
    }
    // The coefficients' gradient and block, and the coupling, covariate by covariate.
    coupling.fill(0);
    for (let k = 0; k < K; k++) {
      const column = k * V;
      let slope = -COEFFICIENT_PRECISION * point[n + k]!;
      for (let v = 0; v < activeVotes; v++) {
        const xk = activeX[column + v]!;
        slope += surprises[v]! * xk;
        const share = weights[v]! * xk;
        coupling[activeFirst[v]! * K + k]! += share;
        coupling[activeSecond[v]! * K + k]! -= share;
      }
      gradient[n + k] = slope;
      for (let l = 0; l <= k; l++) {
        const other = l * V;
        let sum = k === l ? COEFFICIENT_PRECISION : 0;
        for (let v = 0; v < activeVotes; v++) sum += weights[v]! * activeX[column + v]! * activeX[other + v]!;
        coefficientBlock[k * K + l] = sum;
        coefficientBlock[l * K + k] = sum;
      }
    }
    cholesky(coefficientBlock, K, this.coefficientFactor);
    // The Schur complement's diagonal: each agent's curvature less what the coefficients explain of it.
    const { small, smallSolved, schurDiagonal } = this;
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < K; k++) small[k] = coupling[i * K + k]!;
      choleskySolve(this.coefficientFactor, K, small, 0, smallSolved);
      schurDiagonal[i] = curvature[i]! - dotProduct(small, smallSolved, K);
    }
  }

  /**
   * Solves H·step = gradient. The coefficients are eliminated first: with H = [A B; Bᵀ C] (A the
   * strengths' block, C the coefficients', B their coupling), the strengths' step solves the Schur
   * complement (A − B·C⁻¹·Bᵀ)·Δθ = gθ − B·C⁻¹·gβ, by conjugate gradients preconditioned by its
   * diagonal; then Δβ = C⁻¹·(gβ − Bᵀ·Δθ) exactly. A product with the complement is the raw fit's
   * pass over the pairs plus two passes over the agents, so the covariates cost nothing per pair.
   * As in the raw fit, shifting every strength alike changes only the prior's term (each vote's
   * coupling adds to one agent what it takes from the other, so Bᵀ·1 = 0): that direction is
   * solved in closed form and CG works on the rest.
   */
  /** Takes the negated Hessian at `point` (the prior centred at zero, the votes of the last solve), for the intervals. */
  linearizeAt(point: Float64Array): void {
    this.evaluate(point, this.zeroCenter);
  }

  /** Solves H·out = rhs (strengths, then coefficients) at the point of the last `linearizeAt`. */
  solveLinear(rhs: Float64Array, out: Float64Array, relative = LINEAR_ACCURACY): void {
    this.gradient.set(rhs);
    this.solveNewtonStep(0, relative);
    out.set(this.step);
  }

  /**
   * uᵀ·M·u for the meat M of the robust (sandwich) covariance at the last `linearizeAt`: the sum
   * over the votes of each one's score contribution along `u`, squared. Per vote that is its
   * surprise (score less expected) times u's change of its gap.
   */
  meatAlong(u: Float64Array): number {
    const { n, K, activeVotes, activeX, activeFirst, activeSecond, activeTimes, surprises } = this;
    const V = this.votePair.length;
    let total = 0;
    for (let v = 0; v < activeVotes; v++) {
      let along = u[activeFirst[v]!]! - u[activeSecond[v]!]!;
      for (let k = 0; k < K; k++) along += activeX[k * V + v]! * u[n + k]!;
      const surprise = surprises[v]! / activeTimes[v]!;
      total += activeTimes[v]! * surprise * surprise * along * along;
    }
    return total;
  }

  /**
   * Each strength's robust variance with the strengths' block of H⁻¹ taken as the inverse of its
   * Schur complement's diagonal S, into `sandwich`, and the model's own (1/Sᵢᵢ) into `model`, at
   * the last `linearizeAt`. Row i of H⁻¹ is then (eᵢ, −dᵢ)/Sᵢᵢ with dᵢ = C⁻¹·Bᵢᵀ, and a vote's
   * score along it is its surprise r times (±1 for i's side − x·dᵢ)/Sᵢᵢ; squared and summed, that
   * is (mᵢ − 2·dᵢ·qᵢ + dᵢᵀ·Q·dᵢ)/Sᵢᵢ² with mᵢ = Σ r² over i's votes, qᵢ = Σ ±r²·x over them and
   * Q = Σ r²·x·xᵀ over all votes: one pass over the votes and K² work per agent. The opponents'
   * own uncertainty is added to second order as the raw board adds it (intervals.ts, rawSpread).
   */
  diagonalSandwich(sandwich: Float64Array, model: Float64Array): void {
    const { n, K, activeVotes, activeX, activeFirst, activeSecond, activeTimes, surprises, coupling } = this;
    const { small, smallSolved, schurDiagonal } = this;
    const V = this.votePair.length;
    const { activePair, activePairs, pairFirst, pairSecond, pairWeight } = this;
    const own = new Float64Array(n);
    const cross = new Float64Array(n * K);
    const outer = new Float64Array(K * K);
    const pairMeat = new Float64Array(activePairs);
    for (let v = 0; v < activeVotes; v++) {
      const r = surprises[v]! / activeTimes[v]!;
      const meat = activeTimes[v]! * r * r;
      const i = activeFirst[v]!;
      const j = activeSecond[v]!;
      own[i]! += meat;
      own[j]! += meat;
      pairMeat[activePair[v]!]! += meat;
      for (let k = 0; k < K; k++) {
        const xk = activeX[k * V + v]!;
        cross[i * K + k]! += meat * xk;
        cross[j * K + k]! -= meat * xk;
        for (let l = 0; l <= k; l++) outer[k * K + l]! += meat * xk * activeX[l * V + v]!;
      }
    }
    for (let k = 0; k < K; k++) for (let l = 0; l < k; l++) outer[l * K + k] = outer[k * K + l]!;
    // The opponents' share, to second order, as for the raw board (intervals.ts, rawSpread).
    const widening = new Float64Array(n).fill(1);
    const across = new Float64Array(n);
    const beyond = new Float64Array(n);
    for (let p = 0; p < activePairs; p++) {
      const [i, j] = [pairFirst[p]!, pairSecond[p]!];
      const w = pairWeight[p]!;
      const [si, sj] = [schurDiagonal[i]!, schurDiagonal[j]!];
      widening[i]! += (w * w) / (si * sj);
      widening[j]! += (w * w) / (si * sj);
      across[i]! += (pairMeat[p]! * w) / sj;
      across[j]! += (pairMeat[p]! * w) / si;
      beyond[i]! += (own[j]! * w * w) / (sj * sj);
      beyond[j]! += (own[i]! * w * w) / (si * si);
    }
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < K; k++) small[k] = coupling[i * K + k]!;
      choleskySolve(this.coefficientFactor, K, small, 0, smallSolved);
      let quadratic = own[i]!;
      for (let k = 0; k < K; k++) {
        quadratic -= 2 * smallSolved[k]! * cross[i * K + k]!;
        for (let l = 0; l < K; l++) quadratic += smallSolved[k]! * outer[k * K + l]! * smallSolved[l]!;
      }
      const s = schurDiagonal[i]!;
      const rho = widening[i]!;
      sandwich[i] = (quadratic * rho * rho - 2 * rho * across[i]! + beyond[i]!) / (s * s);
      model[i] = rho / s;
    }
  }

  private solveNewtonStep(tolerance: number, relative?: number): void {
    const { n, K, gradient, step, residual, coupling, small, smallSolved } = this;
    choleskySolve(this.coefficientFactor, K, gradient, n, step);
    let meanRight = 0;
    for (let i = 0; i < n; i++) {
      let right = gradient[i]!;
      for (let k = 0; k < K; k++) right -= coupling[i * K + k]! * step[n + k]!;
      residual[i] = right;
      meanRight += right;
    }
    meanRight /= n;
    for (let i = 0; i < n; i++) {
      residual[i]! -= meanRight;
      step[i] = 0;
    }
    conjugateGradient(this.system, residual, step, this.work, (initial) => solveLimit(initial, tolerance, relative));
    const shift = meanRight / this.options.priorPrecision;
    for (let i = 0; i < n; i++) step[i]! += shift;
    // The coefficients' step, from the strengths'.
    for (let k = 0; k < K; k++) {
      let right = gradient[n + k]!;
      for (let i = 0; i < n; i++) right -= coupling[i * K + k]! * step[i]!;
      small[k] = right;
    }
    choleskySolve(this.coefficientFactor, K, small, 0, smallSolved);
    for (let k = 0; k < K; k++) step[n + k] = smallSolved[k]!;
  }

  /** out = (A − B·C⁻¹·Bᵀ)·v over the strengths: the prior, one pass over the pairs, then the coefficients' share. */
  private multiplySchur(v: Float64Array, out: Float64Array): void {
    const { n, K, pairWeight, activePairs, pairFirst, pairSecond, coupling, small, smallSolved } = this;
    const precision = this.options.priorPrecision;
    for (let i = 0; i < n; i++) out[i] = precision * v[i]!;
    for (let p = 0; p < activePairs; p++) {
      const i = pairFirst[p]!;
      const j = pairSecond[p]!;
      const along = pairWeight[p]! * (v[i]! - v[j]!);
      out[i]! += along;
      out[j]! -= along;
    }
    small.fill(0);
    for (let i = 0; i < n; i++) for (let k = 0; k < K; k++) small[k]! += coupling[i * K + k]! * v[i]!;
    choleskySolve(this.coefficientFactor, K, small, 0, smallSolved);
    for (let i = 0; i < n; i++) {
      let share = 0;
      for (let k = 0; k < K; k++) share += coupling[i * K + k]! * smallSolved[k]!;
      out[i]! -= share;
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
