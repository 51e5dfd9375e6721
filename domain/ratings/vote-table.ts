/** The votes of a leaderboard fit as typed arrays: the agents, the pairs that met, each vote's pair and outcome. */

import type { PairIndex } from './bt-fit';
import type { VoteOutcome } from './elo';

// Bound once: inside a vm context (Temporal's workflow sandbox, jest) every global lookup such
// as `Math.floor` goes through the context's interceptors, which is slow in a hot loop.
const { floor } = Math;

export interface BattleVote {
  a: number;
  b: number;
  outcome: VoteOutcome;
}

/** Outcome kinds per pair, relative to the pair's first (lower-index) agent. */
const FIRST_WINS = 0;
const SECOND_WINS = 1;
const DRAW = 2;

/** Per agent index, its own vote record. */
export interface AgentRecords {
  votes: Int32Array;
  wins: Int32Array;
  losses: Int32Array;
  /** Ties and both-bad verdicts. */
  ties: Int32Array;
}

export interface VoteTable {
  /** Agent ids in ascending order; an agent's position is its index in the solver's vectors. */
  agentIds: Float64Array;
  records: AgentRecords;
  /** Ordered by first agent, then second, so passes over the pairs read the agents in order. */
  pairs: PairIndex;
  /**
   * Each counted vote's pair index · 3 + outcome kind, ascending: the votes grouped by pair, so
   * that adding up a resample's pair totals reads and writes memory in order.
   */
  outcomeKeys: Int32Array;
  /** For each counted vote, in input order: its position in `outcomeKeys`. */
  votePosition: Int32Array;
}

/**
 * Tabulates the votes; a vote of an agent against itself carries no information and is left
 * out. Built by sorting typed arrays rather than with maps keyed by pair: a million votes make
 * about as many pairs, and sorting keeps that to a few arrays of numbers.
 */
export function tabulateVotes(votes: readonly BattleVote[]): VoteTable {
  let counted = 0;
  for (const vote of votes) if (vote.a !== vote.b) counted++;

  const sides = new Float64Array(2 * counted);
  let side = 0;
  for (const vote of votes) {
    if (vote.a === vote.b) continue;
    sides[side++] = vote.a;
    sides[side++] = vote.b;
  }
  const agentIds = distinctSorted(sides);
  const n = agentIds.length;
  const records: AgentRecords = {
    votes: new Int32Array(n),
    wins: new Int32Array(n),
    losses: new Int32Array(n),
    ties: new Int32Array(n),
  };

  // A pair's key is low · n + high, exact in a double for any n below 90 million.
  const pairKeys = new Float64Array(counted);
  const voteKinds = new Int32Array(counted);
  let v = 0;
  for (const vote of votes) {
    if (vote.a === vote.b) continue;
    const a = positionOf(agentIds, vote.a);
    const b = positionOf(agentIds, vote.b);
    const low = a < b ? a : b;
    pairKeys[v] = low * n + (a < b ? b : a);
    records.votes[a]! += 1;
    records.votes[b]! += 1;
    if (vote.outcome === 'a' || vote.outcome === 'b') {
      const winner = vote.outcome === 'a' ? a : b;
      records.wins[winner]! += 1;
      records.losses[winner === a ? b : a]! += 1;
      voteKinds[v] = winner === low ? FIRST_WINS : SECOND_WINS;
    } else {
      records.ties[a]! += 1;
      records.ties[b]! += 1;
      voteKinds[v] = DRAW;
    }
    v++;
  }

  const keys = distinctSorted(pairKeys);
  const first = new Int32Array(keys.length);
  const second = new Int32Array(keys.length);
  for (let p = 0; p < keys.length; p++) {
    const key = keys[p]!;
    first[p] = floor(key / n);
    second[p] = key - first[p]! * n;
  }
  // A counting sort of the votes by outcome key; voteKinds becomes each vote's key first.
  const groupStart = new Int32Array(keys.length * 3 + 1);
  for (let vote = 0; vote < counted; vote++) {
    voteKinds[vote] = positionOf(keys, pairKeys[vote]!) * 3 + voteKinds[vote]!;
    groupStart[voteKinds[vote]! + 1]! += 1;
  }
  for (let key = 1; key < groupStart.length; key++) groupStart[key]! += groupStart[key - 1]!;
  const outcomeKeys = new Int32Array(counted);
  const votePosition = new Int32Array(counted);
  for (let vote = 0; vote < counted; vote++) {
    const position = groupStart[voteKinds[vote]!]!++;
    votePosition[vote] = position;
    outcomeKeys[position] = voteKinds[vote]!;
  }
  return { agentIds, records, pairs: { agentCount: n, first, second }, outcomeKeys, votePosition };
}

/**
 * A bootstrap resample: as many votes as were counted, drawn with replacement. `times` receives
 * how often each vote was drawn, by its position in `outcomeKeys`.
 */
export function drawResample(table: VoteTable, random: () => number, times: Int32Array): void {
  const { votePosition } = table;
  const count = votePosition.length;
  times.fill(0);
  for (let v = 0; v < count; v++) times[votePosition[floor(random() * count)]!]! += 1;
}

/**
 * What each pair's first agent scored (wins + half the draws) and the games the pair played,
 * counting the vote at each position of `outcomeKeys` `times[position]` times.
 */
export function pairTotals(table: VoteTable, times: Int32Array, score: Float64Array, games: Float64Array): void {
  const { outcomeKeys } = table;
  score.fill(0);
  games.fill(0);
  for (let position = 0; position < outcomeKeys.length; position++) {
    const drawn = times[position]!;
    if (drawn === 0) continue;
    const key = outcomeKeys[position]!;
    const pair = floor(key / 3);
    const kind = key - 3 * pair;
    games[pair]! += drawn;
    if (kind === FIRST_WINS) score[pair]! += drawn;
    else if (kind === DRAW) score[pair]! += 0.5 * drawn;
  }
}

/** The distinct values, ascending. */
function distinctSorted(values: Float64Array): Float64Array {
  const sorted = Float64Array.from(values).sort();
  let count = 0;
  for (let k = 0; k < sorted.length; k++) {
    if (k === 0 || sorted[k] !== sorted[count - 1]) sorted[count++] = sorted[k]!;
  }
  return sorted.slice(0, count);
}

/** Where `value` sits in the ascending array, which holds it. */
function positionOf(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
