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
 * 4. A cell is flagged when p < alpha / (cells tested) (Bonferroni over every group and agent).
 *
 * Clusters and addresses are tested only when two or more judges voted from them (a group of one
 * is its judge). In simulation (test/unit/ratings/concentrated-votes.test.ts) honest arenas with
 * judges of varied sharpness and tie rates flag nobody in the great majority of runs, at or below
 * the stated family-wise rate alpha; an owner's accounts voting for their agent are flagged.
 */
import { BradleyTerrySolver } from './bt-fit';
import { ELO_SCALE, scoreForA, type VoteOutcome } from './elo';
import { pairTotals, tabulateVotes, type BattleVote } from './vote-table';

// Bound once: inside a vm context every global lookup such as `Math.exp` goes through the context's interceptors.
const { abs, exp, max, min, sqrt, LN10 } = Math;

/** A vote as this test groups it. */
export interface GroupedVote {
  judgeId: number;
  /** The judge's registration cluster (`users.registration_cluster_id`; its own id when alone). */
  cluster: number;
  /** The client address the vote came from; null when not known (votes older than the address record). */
  network: string | null;
  a: number;
  b: number;
  outcome: VoteOutcome;
}

export type VoteGroup =
  { kind: 'judge'; judgeId: number } | { kind: 'cluster'; cluster: number } | { kind: 'address'; network: string };

export interface ConcentrationOptions {
  /** Family-wise false-alarm rate over every cell tested; default 0.01. */
  alpha?: number;
  /** Votes a group needs with an agent before the pair is tested; default 10. */
  minVotes?: number;
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
  /** Group-and-agent cells tested (the Bonferroni divisor). */
  tested: number;
}

/** The reference model's prior: sd 400 Elo, in natural-log strength units. */
const PRIOR_SD_NATS = (400 * LN10) / ELO_SCALE;
const PRIOR_PRECISION = 1 / (PRIOR_SD_NATS * PRIOR_SD_NATS);
/** How strongly a group's sharpness is pulled toward the model's (β = 1), in the units of its curvature. */
const SHARPNESS_PRIOR = 4;
const SHARPNESS_RANGE: readonly [number, number] = [0.25, 4];

interface Model {
  strength(agentId: number): number;
  information(agentId: number): number;
}

/** Strengths and Fisher information fitted to the reference votes; agents it never saw sit at the prior. */
export function referenceModel(reference: readonly BattleVote[]): Model {
  const table = tabulateVotes(reference);
  const n = table.agentIds.length;
  const theta = new Float64Array(n);
  const information = new Float64Array(n);
  if (n > 0) {
    const solver = new BradleyTerrySolver(table.pairs, {
      priorPrecision: PRIOR_PRECISION,
      tolerance: 1e-6,
      maxIterations: 100,
    });
    const pairCount = table.pairs.first.length;
    const score = new Float64Array(pairCount);
    const games = new Float64Array(pairCount);
    pairTotals(table, new Int32Array(table.outcomeKeys.length).fill(1), score, games);
    solver.solve(score, games, theta);
    for (let p = 0; p < pairCount; p++) {
      const i = table.pairs.first[p]!;
      const j = table.pairs.second[p]!;
      const q = sigmoid(theta[i]! - theta[j]!);
      information[i]! += games[p]! * q * (1 - q);
      information[j]! += games[p]! * q * (1 - q);
    }
  }
  const index = new Map<number, number>();
  table.agentIds.forEach((id, i) => index.set(id, i));
  return {
    strength: (agentId) => {
      const i = index.get(agentId);
      return i === undefined ? 0 : theta[i]!;
    },
    information: (agentId) => {
      const i = index.get(agentId);
      return PRIOR_PRECISION + (i === undefined ? 0 : information[i]!);
    },
  };
}

/** A group's votes with one agent, summed. */
interface Cell {
  group: VoteGroup;
  groupKey: string;
  agentId: number;
  votes: number;
  observed: number;
  expected: number;
  variance: number;
  /** The model's uncertainty about the expectation: Σ over the agents of (∂E/∂θ)² / information. */
  modelVariance: number;
  /** ∂E/∂θ of each opponent, summed over this cell's votes, until the model's share is added. */
  opponentSlopes: Map<number, number>;
}

function groupsOf(vote: GroupedVote, multiJudge: Set<string>): Array<[string, VoteGroup]> {
  const groups: Array<[string, VoteGroup]> = [[`j:${vote.judgeId}`, { kind: 'judge', judgeId: vote.judgeId }]];
  const cluster = `c:${vote.cluster}`;
  if (multiJudge.has(cluster)) groups.push([cluster, { kind: 'cluster', cluster: vote.cluster }]);
  if (vote.network !== null) {
    const address = `n:${vote.network}`;
    if (multiJudge.has(address)) groups.push([address, { kind: 'address', network: vote.network }]);
  }
  return groups;
}

/** Clusters and addresses two or more judges voted from. */
function sharedGroups(votes: readonly GroupedVote[]): Set<string> {
  const judges = new Map<string, number>();
  const shared = new Set<string>();
  for (const vote of votes) {
    for (const key of [`c:${vote.cluster}`, vote.network === null ? null : `n:${vote.network}`]) {
      if (key === null) continue;
      const first = judges.get(key);
      if (first === undefined) judges.set(key, vote.judgeId);
      else if (first !== vote.judgeId) shared.add(key);
    }
  }
  return shared;
}

/**
 * Each group's sharpness: the β that maximises Σ s·ln σ(β·d) + (1 − s)·ln σ(−β·d) over its votes,
 * with a Gaussian pull toward 1, by Newton's method (the objective is concave in β).
 */
function sharpnessOf(votes: readonly GroupedVote[], shared: Set<string>, model: Model): Map<string, number> {
  const byGroup = new Map<string, Array<[number, number]>>();
  for (const vote of votes) {
    if (vote.a === vote.b) continue;
    const d = model.strength(vote.a) - model.strength(vote.b);
    const s = scoreForA(vote.outcome);
    for (const [key] of groupsOf(vote, shared)) {
      const list = byGroup.get(key) ?? [];
      list.push([d, s]);
      byGroup.set(key, list);
    }
  }
  const sharpness = new Map<string, number>();
  for (const [key, list] of byGroup) {
    let beta = 1;
    for (let iteration = 0; iteration < 20; iteration++) {
      let gradient = -SHARPNESS_PRIOR * (beta - 1);
      let curvature = SHARPNESS_PRIOR;
      for (const [d, s] of list) {
        const q = sigmoid(beta * d);
        gradient += d * (s - q);
        curvature += d * d * q * (1 - q);
      }
      const next = min(SHARPNESS_RANGE[1], max(SHARPNESS_RANGE[0], beta + gradient / curvature));
      const moved = abs(next - beta);
      beta = next;
      if (moved < 1e-6) break;
    }
    sharpness.set(key, beta);
  }
  return sharpness;
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
  const shared = sharedGroups(votes);

  // Which cells have enough votes to be tested.
  const sizes = new Map<string, number>();
  for (const vote of votes) {
    if (vote.a === vote.b) continue;
    for (const [key] of groupsOf(vote, shared)) {
      for (const agentId of [vote.a, vote.b]) sizes.set(`${key}|${agentId}`, (sizes.get(`${key}|${agentId}`) ?? 0) + 1);
    }
  }
  const sharpness = sharpnessOf(votes, shared, model);

  // Each tested cell's observed score, expectation and variance, from the agent's side.
  const cells = new Map<string, Cell>();
  for (const vote of votes) {
    if (vote.a === vote.b) continue;
    const scoreA = scoreForA(vote.outcome);
    for (const [groupKey, group] of groupsOf(vote, shared)) {
      const beta = sharpness.get(groupKey)!;
      for (const [agentId, opponent, score] of [
        [vote.a, vote.b, scoreA],
        [vote.b, vote.a, 1 - scoreA],
      ] as const) {
        const key = `${groupKey}|${agentId}`;
        if ((sizes.get(key) ?? 0) < minVotes) continue;
        const cell = cells.get(key) ?? {
          group,
          groupKey,
          agentId,
          votes: 0,
          observed: 0,
          expected: 0,
          variance: 0,
          modelVariance: 0,
          opponentSlopes: new Map<number, number>(),
        };
        cells.set(key, cell);
        const p = sigmoid(beta * (model.strength(agentId) - model.strength(opponent)));
        cell.votes += 1;
        cell.observed += score;
        cell.expected += p;
        cell.variance += p * (1 - p);
        cell.opponentSlopes.set(opponent, (cell.opponentSlopes.get(opponent) ?? 0) + beta * p * (1 - p));
      }
    }
  }

  const tested = cells.size;
  const flags: ConcentrationFlag[] = [];
  for (const cell of cells.values()) {
    // The model is uncertain about the agent and its opponents alike; each uncertainty moves E.
    const beta = sharpness.get(cell.groupKey)!;
    const slope = beta * cell.variance;
    cell.modelVariance = (slope * slope) / model.information(cell.agentId);
    for (const [opponent, opponentSlope] of cell.opponentSlopes)
      cell.modelVariance += (opponentSlope * opponentSlope) / model.information(opponent);
    const sd = sqrt(cell.variance + cell.modelVariance);
    const z = sd > 0 ? max(0, abs(cell.observed - cell.expected) - 0.5) / sd : 0;
    const pValue = erfc(z / Math.SQRT2);
    if (pValue >= alpha / tested) continue;
    flags.push({
      group: cell.group,
      agentId: cell.agentId,
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

function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x));
}

/**
 * The complementary error function, by the Chebyshev fit of Numerical Recipes (relative error below
 * 1.2e-7 everywhere), which is all a threshold of 1e-4 or so needs.
 */
export function erfc(x: number): number {
  const z = abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}
