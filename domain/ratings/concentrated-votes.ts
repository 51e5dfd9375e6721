/**
 * Concentrated votes: a judge, a cluster of accounts registered together, or a client address whose
 * votes for (or against) one agent are far from what the fitted model expects of them.
 *
 * Why this test as well as the outlier test (`outlier-judges.ts`): an agent's owner who buys votes
 * with accounts of their own votes honestly everywhere except on their agent's pairs, and there its
 * accounts *are* the consensus the outlier test measures against. This test measures each group's
 * votes on one agent against a model fitted to established judges' votes instead:
 *
 * 1. The model: Bradley-Terry strengths fitted to the reference votes (established judges'), with a
 *    prior at the spread of a real arena (sd 400 Elo), and each agent's Fisher information.
 * 2. Each group may judge more or less sharply than the model (an honest judge who sees differences
 *    clearly favours strong agents more often than the model does): its sharpness β scales the
 *    model's rating differences, fitted to the group's votes (pulled toward 1, kept within [1/4, 4]).
 * 3. For each group and agent with at least `minVotes` votes between them: O, the agent's score in
 *    them (a win 1, a tie or both-bad a half), against E = Σ p with p = σ(β·(θ_agent − θ_opponent)).
 *    Its variance is Σ p(1 − p) (an upper bound: ties only narrow it) plus the model's own
 *    uncertainty, Σ over the agent and its opponents of (∂E/∂θ)² / information, so an agent the
 *    established judges have barely seen is never "known" to be weak. z = (|O − E| − ½) / sd,
 *    two-sided normal p.
 * 4. A cell is flagged when p < alpha / (cells tested) (Bonferroni over every group and agent; a
 *    kind of group may be a family of its own, and the per-judge test of establishment makes each
 *    judge's cells one).
 *
 * Clusters and addresses are tested only when two or more judges voted from them (a group of one
 * is its judge). The cohort is every vote marked `cohort` (the votes of judges established by the
 * rule, not by an operator), one group whatever its judges' addresses: an owner's accounts spread
 * over many addresses still vote together on the owner's agent. A group kind may be given a margin:
 * the share of its votes with an agent by which it may lean before the excess is tested
 * (z = (|O − E| − ½ − margin·n) / sd), so a mild honest preference is never flagged however many
 * votes show it. In simulation (test/unit/ratings/concentrated-votes.test.ts) honest arenas with
 * judges of varied sharpness and tie rates flag nobody in the great majority of runs, at or below
 * the stated family-wise rate alpha; an owner's accounts voting for their agent are flagged.
 */
import { scoreForA, type VoteOutcome } from './elo';
import { erfc, referenceModel, sigmoid, type Model } from './reference-model';
import type { BattleVote } from './vote-table';

export { erfc } from './reference-model';

// Bound once: inside a vm context every global lookup such as `Math.exp` goes through the context's interceptors.
const { abs, max, min, sqrt } = Math;

/** A vote as this test groups it. */
export interface GroupedVote {
  judgeId: number;
  /** The judge's registration cluster (`users.registration_cluster_id`; its own id when alone). */
  cluster: number;
  /** The client address the vote came from; null when not known (votes older than the address record). */
  network: string | null;
  /** Whether the vote belongs to the cohort (tested as one group). */
  cohort?: boolean;
  a: number;
  b: number;
  outcome: VoteOutcome;
}

export type VoteGroup =
  | { kind: 'judge'; judgeId: number }
  | { kind: 'cluster'; cluster: number }
  | { kind: 'address'; network: string }
  | { kind: 'cohort' };

export interface ConcentrationOptions {
  /** Family-wise false-alarm rate over every cell tested; default 0.01. */
  alpha?: number;
  /** Votes a group needs with an agent before the pair is tested; default 10. */
  minVotes?: number;
  /** Per kind of group, the share of its votes with an agent it may lean by before the excess is tested; default 0. */
  margins?: Partial<Record<VoteGroup['kind'], number>>;
  /** Over what `alpha` is the family-wise rate: every cell tested (default), or each group's cells. */
  family?: 'all' | 'group';
  /** Kinds of group whose cells are a family of their own, apart from every other cell tested. */
  ownFamilies?: ReadonlyArray<VoteGroup['kind']>;
}

export interface ConcentrationFlag {
  group: VoteGroup;
  agentId: number;
  direction: 'for' | 'against';
  /** The group's votes with the agent. */
  votes: number;
  /** The agent's score in them, and what the model expected of this group. */
  observed: number;
  expected: number;
  z: number;
  pValue: number;
}

export interface ConcentrationReport {
  flags: ConcentrationFlag[];
  /** Group-and-agent cells tested (the Bonferroni divisor, with `family: 'all'`). */
  tested: number;
}

/** How strongly a group's sharpness is pulled toward the model's (β = 1), in the units of its curvature. */
const SHARPNESS_PRIOR = 4;
const SHARPNESS_RANGE: readonly [number, number] = [0.25, 4];

/** Group slots per vote: its judge, cluster, address and the cohort. */
const SLOTS = 4;

/** A tested group's votes with one agent, summed. */
interface Cell {
  group: number;
  agent: number;
  votes: number;
  observed: number;
  expected: number;
  variance: number;
  /** The group's sharpness as this cell reads it. */
  beta: number;
  /** ∂E/∂θ of each opponent (by agent index), summed over the cell's votes. */
  opponentSlopes: Map<number, number>;
}

/**
 * The votes as flat arrays: each vote's agents (as dense indices), rating difference under the model
 * and score, and the (up to three) groups it belongs to: its judge, its judge's cluster and its
 * address, the last two only when two or more judges voted from them (a group of one is its judge).
 */
interface VoteIndex {
  groups: VoteGroup[];
  agentIds: number[];
  first: Int32Array;
  second: Int32Array;
  difference: Float64Array;
  score: Float64Array;
  /** SLOTS group indices per vote (judge, cluster, address, cohort), -1 for none. */
  groupOf: Int32Array;
}

function indexVotes(votes: readonly GroupedVote[], model: Model): VoteIndex {
  // Which clusters and addresses two or more judges voted from.
  const clusterJudge = new Map<number, number>();
  const networkJudge = new Map<string, number>();
  const sharedClusters = new Set<number>();
  const sharedNetworks = new Set<string>();
  for (const vote of votes) {
    const first = clusterJudge.get(vote.cluster);
    if (first === undefined) clusterJudge.set(vote.cluster, vote.judgeId);
    else if (first !== vote.judgeId) sharedClusters.add(vote.cluster);
    if (vote.network === null) continue;
    const firstHere = networkJudge.get(vote.network);
    if (firstHere === undefined) networkJudge.set(vote.network, vote.judgeId);
    else if (firstHere !== vote.judgeId) sharedNetworks.add(vote.network);
  }
  const groups: VoteGroup[] = [];
  const judgeGroups = new Map<number, number>();
  const clusterGroups = new Map<number, number>();
  const networkGroups = new Map<string, number>();
  const cohortGroup = new Map<number, number>();
  const groupOf = <K>(map: Map<K, number>, key: K, group: () => VoteGroup): number => {
    let index = map.get(key);
    if (index === undefined) {
      index = groups.length;
      groups.push(group());
      map.set(key, index);
    }
    return index;
  };
  const agentIds: number[] = [];
  const agentIndex = new Map<number, number>();
  const agentOf = (id: number): number => {
    let index = agentIndex.get(id);
    if (index === undefined) {
      index = agentIds.length;
      agentIds.push(id);
      agentIndex.set(id, index);
    }
    return index;
  };
  const counted = votes.filter((vote) => vote.a !== vote.b);
  const n = counted.length;
  const index: VoteIndex = {
    groups,
    agentIds,
    first: new Int32Array(n),
    second: new Int32Array(n),
    difference: new Float64Array(n),
    score: new Float64Array(n),
    groupOf: new Int32Array(SLOTS * n).fill(-1),
  };
  for (let k = 0; k < n; k++) {
    const vote = counted[k]!;
    index.first[k] = agentOf(vote.a);
    index.second[k] = agentOf(vote.b);
    index.difference[k] = model.strength(vote.a) - model.strength(vote.b);
    index.score[k] = scoreForA(vote.outcome);
    index.groupOf[SLOTS * k] = groupOf(judgeGroups, vote.judgeId, () => ({ kind: 'judge', judgeId: vote.judgeId }));
    if (sharedClusters.has(vote.cluster))
      index.groupOf[SLOTS * k + 1] = groupOf(clusterGroups, vote.cluster, () => ({
        kind: 'cluster',
        cluster: vote.cluster,
      }));
    const network = vote.network;
    if (network !== null && sharedNetworks.has(network))
      index.groupOf[SLOTS * k + 2] = groupOf(networkGroups, network, () => ({ kind: 'address', network }));
    if (vote.cohort) index.groupOf[SLOTS * k + 3] = groupOf(cohortGroup, 0, () => ({ kind: 'cohort' }));
  }
  return index;
}

/**
 * Each group's sharpness: the β that maximises Σ s·ln σ(β·d) + (1 − s)·ln σ(−β·d) over its votes,
 * with a Gaussian pull toward 1, by Newton's method for every group at once (the objective is
 * concave in β).
 */
function sharpnessOf(index: VoteIndex): Float64Array {
  const count = index.groups.length;
  const beta = new Float64Array(count).fill(1);
  const gradient = new Float64Array(count);
  const curvature = new Float64Array(count);
  const { difference, score, groupOf } = index;
  // Newton's method converges in a handful of steps; a sharpness good to 1e-4 is all the test needs.
  for (let iteration = 0; iteration < 12; iteration++) {
    for (let g = 0; g < count; g++) {
      gradient[g] = -SHARPNESS_PRIOR * (beta[g]! - 1);
      curvature[g] = SHARPNESS_PRIOR;
    }
    for (let k = 0; k < difference.length; k++) {
      const d = difference[k]!;
      for (let slot = SLOTS * k; slot < SLOTS * k + SLOTS; slot++) {
        const g = groupOf[slot]!;
        if (g < 0) continue;
        const q = sigmoid(beta[g]! * d);
        gradient[g]! += d * (score[k]! - q);
        curvature[g]! += d * d * q * (1 - q);
      }
    }
    let moved = 0;
    for (let g = 0; g < count; g++) {
      const next = min(SHARPNESS_RANGE[1], max(SHARPNESS_RANGE[0], beta[g]! + gradient[g]! / curvature[g]!));
      moved = max(moved, abs(next - beta[g]!));
      beta[g] = next;
    }
    if (moved < 1e-4) break;
  }
  return beta;
}

/**
 * The cohort's sharpness without each agent's votes (by agent index). The cohort's votes on the
 * agent under test would otherwise set the sharpness they are tested with: bought wins for a weak
 * agent make the cohort look blunt, which raises what the model expects of the agent and hides the
 * purchase. One Newton step from the cohort's full sharpness, on its votes without the agent (the
 * objective is smooth, and one pass over the votes serves every agent).
 */
function cohortSharpnessWithout(
  index: VoteIndex,
  beta: Float64Array,
): { group: number; beta: Map<number, number> } | null {
  const group = index.groups.findIndex((g) => g.kind === 'cohort');
  if (group < 0) return null;
  const b = beta[group]!;
  let gradient = -SHARPNESS_PRIOR * (b - 1);
  let curvature = SHARPNESS_PRIOR;
  const agentGradient = new Map<number, number>();
  const agentCurvature = new Map<number, number>();
  const add = (map: Map<number, number>, key: number, value: number) => map.set(key, (map.get(key) ?? 0) + value);
  for (let k = 0; k < index.first.length; k++) {
    if (index.groupOf[SLOTS * k + 3] !== group) continue;
    const d = index.difference[k]!;
    const q = sigmoid(b * d);
    const g = d * (index.score[k]! - q);
    const h = d * d * q * (1 - q);
    gradient += g;
    curvature += h;
    for (const agent of [index.first[k]!, index.second[k]!]) {
      add(agentGradient, agent, g);
      add(agentCurvature, agent, h);
    }
  }
  const without = new Map<number, number>();
  for (const [agent, g] of agentGradient) {
    const step = (gradient - g) / (curvature - agentCurvature.get(agent)!);
    without.set(agent, min(SHARPNESS_RANGE[1], max(SHARPNESS_RANGE[0], b + step)));
  }
  return { group, beta: without };
}

/**
 * The cells (group and agent) with at least `minVotes` votes, by key group · agents + agent.
 * Counted by sorting every vote's keys (two a group), so the count needs no map of every cell.
 */
function testedCells(index: VoteIndex, minVotes: number): Map<number, Cell> {
  const agents = index.agentIds.length;
  const keys = new Float64Array(2 * SLOTS * index.first.length);
  let used = 0;
  for (let k = 0; k < index.first.length; k++) {
    for (let slot = SLOTS * k; slot < SLOTS * k + SLOTS; slot++) {
      const g = index.groupOf[slot]!;
      if (g < 0) continue;
      keys[used++] = g * agents + index.first[k]!;
      keys[used++] = g * agents + index.second[k]!;
    }
  }
  const sorted = keys.subarray(0, used).sort();
  const cells = new Map<number, Cell>();
  for (let start = 0; start < sorted.length;) {
    let end = start + 1;
    while (end < sorted.length && sorted[end] === sorted[start]) end++;
    if (end - start >= minVotes) {
      const key = sorted[start]!;
      const group = Math.floor(key / agents);
      cells.set(key, {
        group,
        agent: key - group * agents,
        votes: 0,
        observed: 0,
        expected: 0,
        variance: 0,
        beta: 1,
        opponentSlopes: new Map(),
      });
    }
    start = end;
  }
  return cells;
}

/** Tests every group's votes on every agent against the model fitted to `reference`. Deterministic. */
export function findConcentratedVotes(
  votes: readonly GroupedVote[],
  reference: readonly BattleVote[],
  options: ConcentrationOptions = {},
): ConcentrationReport {
  const alpha = options.alpha ?? 0.01;
  const minVotes = options.minVotes ?? 10;
  const model = referenceModel(reference);
  const index = indexVotes(votes, model);
  const beta = sharpnessOf(index);
  const cohort = cohortSharpnessWithout(index, beta);
  const cells = testedCells(index, minVotes);
  const agents = index.agentIds.length;
  const strength = index.agentIds.map((id) => model.strength(id));

  // Each tested cell's observed score, expectation and variance, from its agent's side.
  for (let k = 0; k < index.first.length; k++) {
    const scoreFirst = index.score[k]!;
    for (let slot = SLOTS * k; slot < SLOTS * k + SLOTS; slot++) {
      const g = index.groupOf[slot]!;
      if (g < 0) continue;
      for (const [agent, opponent, score] of [
        [index.first[k]!, index.second[k]!, scoreFirst],
        [index.second[k]!, index.first[k]!, 1 - scoreFirst],
      ] as const) {
        const cell = cells.get(g * agents + agent);
        if (!cell) continue;
        cell.beta = g === cohort?.group ? (cohort.beta.get(agent) ?? beta[g]!) : beta[g]!;
        const p = sigmoid(cell.beta * (strength[agent]! - strength[opponent]!));
        cell.votes += 1;
        cell.observed += score;
        cell.expected += p;
        cell.variance += p * (1 - p);
        cell.opponentSlopes.set(opponent, (cell.opponentSlopes.get(opponent) ?? 0) + cell.beta * p * (1 - p));
      }
    }
  }

  const tested = cells.size;
  const cellsOfGroup = new Map<number, number>();
  for (const cell of cells.values()) cellsOfGroup.set(cell.group, (cellsOfGroup.get(cell.group) ?? 0) + 1);
  const apart = (g: number) =>
    options.family === 'group' || (options.ownFamilies ?? []).includes(index.groups[g]!.kind);
  let inCommon = 0;
  for (const [g, count] of cellsOfGroup) if (!apart(g)) inCommon += count;
  const flags: ConcentrationFlag[] = [];
  for (const cell of cells.values()) {
    const group = index.groups[cell.group]!;
    const margin = (options.margins?.[group.kind] ?? 0) * cell.votes;
    // The model is uncertain about the agent and its opponents alike; each uncertainty moves E.
    const slope = cell.beta * cell.variance;
    let modelVariance = (slope * slope) / model.information(index.agentIds[cell.agent]!);
    for (const [opponent, opponentSlope] of cell.opponentSlopes)
      modelVariance += (opponentSlope * opponentSlope) / model.information(index.agentIds[opponent]!);
    const sd = sqrt(cell.variance + modelVariance);
    const z = sd > 0 ? max(0, abs(cell.observed - cell.expected) - 0.5 - margin) / sd : 0;
    const pValue = erfc(z / Math.SQRT2);
    const family = apart(cell.group) ? cellsOfGroup.get(cell.group)! : inCommon;
    if (pValue >= alpha / family) continue;
    flags.push({
      group,
      agentId: index.agentIds[cell.agent]!,
      direction: cell.observed > cell.expected ? 'for' : 'against',
      votes: cell.votes,
      observed: cell.observed,
      expected: cell.expected,
      z,
      pValue,
    });
  }
  flags.sort((x, y) => x.pValue - y.pValue || y.z - x.z || x.agentId - y.agentId);
  return { flags, tested };
}
