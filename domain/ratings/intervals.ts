/**
 * The board's intervals in closed form: the robust (sandwich) covariance H⁻¹·M·H⁻¹ of the fitted
 * strengths, H the negated Hessian of the penalised log-likelihood at the fit (the prior's
 * precision included) and M the sum over the votes of each vote's score contribution squared.
 * It needs no resampling, so it has no seed noise, and it stays right when the model is not
 * (judges noisier than Bradley-Terry says, say).
 *
 * An agent's rating is its strength less the board's mean strength, so its variance is cᵀ·V·c
 * with c = eᵢ − 1/n. Small boards get that exactly, one linear solve per agent; a large board's
 * agents take row i of H⁻¹ as eᵢ/Hᵢᵢ (the diagonal approximation), which is within a fraction of
 * a percent once an agent has met many others (test/unit/ratings/intervals.test.ts measures it).
 *
 * A record the votes cannot place (an agent that never lost, or never scored, or a group that
 * beat, or lost to, everyone outside it, or never met the rest) has no finite maximum without
 * the prior, and its score contributions are nearly zero at the fit, so the sandwich would call
 * it certain. Such agents take the model's own variance instead, cᵀ·H⁻¹·c, whose width comes from
 * the prior at the arena's real spread: an interval the votes and the prior set together. The
 * others take the sandwich, but never less than the model's (bradley-terry.ts, closedFormBounds).
 */
import type { BradleyTerrySolver } from './bt-fit';
import type { VoteTable } from './vote-table';

const { exp, floor, log, sqrt } = Math;

/**
 * An exact interval costs a linear solve per agent, each a few dozen passes over the board's
 * pairs (and, controlled for style, its votes). Boards whose agents × (pairs + votes + agents)
 * stay under this get exact intervals (a second or so at most); larger ones the diagonal's.
 */
export const EXACT_BUDGET = 5e6;

/** Whether a board of `agents` agents, with this many pairs and votes, gets exact intervals. */
export function exactIntervals(agents: number, pairs: number, votes: number): boolean {
  return agents * (pairs + votes + agents) <= EXACT_BUDGET;
}

/** Exact or diagonal (by default as `exactIntervals` says), and for which agents (all by default; an exact spread of a few, for tests). */
export interface SpreadChoice {
  exact?: boolean;
  agents?: readonly number[];
}

/** Per agent, two variances in squared natural-log units: the robust one and the model's. */
export interface Spread {
  sandwich: Float64Array;
  model: Float64Array;
}

/**
 * The raw board's spread at the fitted strengths `theta`, `solver` being the one that fitted
 * them (its last solve counted every vote once).
 */
export function rawSpread(
  table: VoteTable,
  theta: Float64Array,
  solver: BradleyTerrySolver,
  priorPrecision: number,
  how: SpreadChoice = {},
): Spread {
  const n = theta.length;
  const { first, second } = table.pairs;
  const P = first.length;
  // Per pair: its Hessian weight and its meat, Σ (score − expected)² over its votes.
  const weight = new Float64Array(P);
  const meat = new Float64Array(P);
  const kinds = new Float64Array(3 * P);
  for (const key of table.outcomeKeys) kinds[key]! += 1;
  for (let p = 0; p < P; p++) {
    const chance = 1 / (1 + exp(theta[second[p]!]! - theta[first[p]!]!));
    const [won, lost, drawn] = [kinds[3 * p]!, kinds[3 * p + 1]!, kinds[3 * p + 2]!];
    weight[p] = (won + lost + drawn) * chance * (1 - chance);
    meat[p] = won * (1 - chance) ** 2 + lost * chance ** 2 + drawn * (0.5 - chance) ** 2;
  }
  const sandwich = new Float64Array(n);
  const model = new Float64Array(n);
  if (how.exact ?? exactIntervals(n, P, 0)) {
    solver.linearizeAt(theta);
    const c = new Float64Array(n);
    const u = new Float64Array(n);
    sandwich.fill(NaN);
    model.fill(NaN);
    for (const i of how.agents ?? Array.from({ length: n }, (_, k) => k)) {
      c.fill(-1 / n);
      c[i]! += 1;
      solver.solveLinear(c, u);
      let quadratic = 0;
      for (let p = 0; p < P; p++) quadratic += meat[p]! * (u[first[p]!]! - u[second[p]!]!) ** 2;
      let along = 0;
      for (let k = 0; k < n; k++) along += c[k]! * u[k]!;
      sandwich[i] = quadratic;
      model[i] = along;
    }
    return { sandwich, model };
  }
  const curvature = new Float64Array(n).fill(priorPrecision);
  const own = new Float64Array(n);
  for (let p = 0; p < P; p++) {
    for (const i of [first[p]!, second[p]!]) {
      curvature[i]! += weight[p]!;
      own[i]! += meat[p]!;
    }
  }
  // Row i of H⁻¹ to second order (see neighbourWidening): ρᵢ/Hᵢᵢ at i, wᵢⱼ/(Hᵢᵢ·Hⱼⱼ) at each
  // opponent j. Its meat, uᵀ·M·u, is then (Mᵢᵢ·ρᵢ² − 2ρᵢ·Σⱼ mᵢⱼ·wᵢⱼ/Hⱼⱼ + Σⱼ Mⱼⱼ·wᵢⱼ²/Hⱼⱼ²)/Hᵢᵢ².
  const widening = neighbourWidening(table, weight, curvature);
  const across = new Float64Array(n);
  const beyond = new Float64Array(n);
  for (let p = 0; p < P; p++) {
    const [i, j] = [first[p]!, second[p]!];
    across[i]! += (meat[p]! * weight[p]!) / curvature[j]!;
    across[j]! += (meat[p]! * weight[p]!) / curvature[i]!;
    beyond[i]! += (own[j]! * weight[p]! ** 2) / curvature[j]! ** 2;
    beyond[j]! += (own[i]! * weight[p]! ** 2) / curvature[i]! ** 2;
  }
  for (let i = 0; i < n; i++) {
    const rho = widening[i]!;
    sandwich[i] = (own[i]! * rho * rho - 2 * rho * across[i]! + beyond[i]!) / curvature[i]! ** 2;
    model[i] = rho / curvature[i]!;
  }
  return { sandwich, model };
}

/**
 * The diagonal approximation's second-order term: Hᵢᵢ·(H⁻¹)ᵢᵢ is 1 + Σⱼ wᵢⱼ²/(Hᵢᵢ·Hⱼⱼ) + ... (the
 * Neumann series of H = D − W), the share of an agent's uncertainty that its opponents' own
 * uncertainty adds. Both variances are widened by it: with 28 votes an agent, opponents all
 * different, it is about 2% of the variance, which the plain diagonal would leave out.
 */
export function neighbourWidening(table: VoteTable, weight: Float64Array, curvature: Float64Array): Float64Array {
  const { first, second } = table.pairs;
  const widening = new Float64Array(curvature.length).fill(1);
  for (let p = 0; p < first.length; p++) {
    const [i, j] = [first[p]!, second[p]!];
    const shared = (weight[p]! * weight[p]!) / (curvature[i]! * curvature[j]!);
    widening[i]! += shared;
    widening[j]! += shared;
  }
  return widening;
}

/**
 * Which agents the votes place: those in the largest strongly connected part of the graph in
 * which an agent points at every agent it scored against (won or drew). Within such a part every
 * agent has beaten, through some chain, every other, which is when the likelihood alone has a
 * finite maximum (Zermelo; Ford 1957); the rest are separated (see the module's comment). No
 * agent is placed when the largest part is a single agent or two parts tie for largest.
 */
export function placedAgents(table: VoteTable): Uint8Array {
  const n = table.agentIds.length;
  // Adjacency lists of the "scored against" graph, in compressed rows.
  const degree = new Int32Array(n + 1);
  const { first, second } = table.pairs;
  const edges: Array<[number, number]> = [];
  let lastKey = -1;
  for (const key of table.outcomeKeys) {
    if (key === lastKey) continue;
    lastKey = key;
    const pair = floor(key / 3);
    const kind = key - 3 * pair;
    const [i, j] = [first[pair]!, second[pair]!];
    if (kind !== 1) edges.push([i, j]);
    if (kind !== 0) edges.push([j, i]);
  }
  for (const [from] of edges) degree[from + 1]! += 1;
  for (let i = 0; i < n; i++) degree[i + 1]! += degree[i]!;
  const fill = degree.slice(0, n);
  const target = new Int32Array(edges.length);
  for (const [from, to] of edges) target[fill[from]!++] = to;

  const component = stronglyConnected(n, degree, target);
  const size = new Int32Array(n);
  for (let i = 0; i < n; i++) size[component[i]!]! += 1;
  let largest = 0;
  let tied = false;
  for (let c = 1; c < n; c++) {
    if (size[c]! > size[largest]!) [largest, tied] = [c, false];
    else if (size[c] === size[largest]) tied = true;
  }
  const placed = new Uint8Array(n);
  // One agent alone places nothing, and of two equal parts neither is the board the other is placed on.
  if (size[largest]! < 2 || tied) return placed;
  for (let i = 0; i < n; i++) placed[i] = component[i] === largest ? 1 : 0;
  return placed;
}

/** Tarjan's strongly connected components, without recursion: each node's component number. */
function stronglyConnected(n: number, start: Int32Array, target: Int32Array): Int32Array {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const component = new Int32Array(n).fill(-1);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  const callNode = new Int32Array(n);
  const callEdge = new Int32Array(n);
  let stackTop = 0;
  let counter = 0;
  let components = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    let depth = 0;
    callNode[0] = root;
    callEdge[0] = start[root]!;
    index[root] = low[root] = counter++;
    stack[stackTop++] = root;
    onStack[root] = 1;
    while (depth >= 0) {
      const node = callNode[depth]!;
      const edge = callEdge[depth]!;
      if (edge < start[node + 1]!) {
        callEdge[depth]! += 1;
        const next = target[edge]!;
        if (index[next] === -1) {
          index[next] = low[next] = counter++;
          stack[stackTop++] = next;
          onStack[next] = 1;
          depth++;
          callNode[depth] = next;
          callEdge[depth] = start[next]!;
        } else if (onStack[next]) low[node] = Math.min(low[node]!, index[next]!);
        continue;
      }
      if (low[node] === index[node]) {
        let member: number;
        do {
          member = stack[--stackTop]!;
          onStack[member] = 0;
          component[member] = components;
        } while (member !== node);
        components++;
      }
      depth--;
      if (depth >= 0) {
        const parent = callNode[depth]!;
        low[parent] = Math.min(low[parent]!, low[node]!);
      }
    }
  }
  return component;
}

/**
 * The groups of agents that met, through some chain of battles: the comparison graph's connected
 * parts, largest first, each as agent indices ascending. A board whose agents form more than one
 * cannot compare the groups from votes: only the prior places them against each other.
 */
export function comparisonGroups(table: VoteTable): number[][] {
  const n = table.agentIds.length;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const { first, second } = table.pairs;
  for (let p = 0; p < first.length; p++) {
    const [a, b] = [root(first[p]!), root(second[p]!)];
    if (a !== b) parent[a < b ? b : a] = a < b ? a : b;
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = root(i);
    const members = groups.get(r) ?? [];
    members.push(i);
    groups.set(r, members);
  }
  return [...groups.values()].sort((x, y) => y.length - x.length || x[0]! - y[0]!);
}

/** The standard normal quantile, by Acklam's rational approximation (relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError('a quantile needs a probability between 0 and 1');
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lowerTail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
    ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  const tail = 0.02425;
  if (p < tail) return lowerTail(sqrt(-2 * log(p)));
  if (p > 1 - tail) return -lowerTail(sqrt(-2 * log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}
