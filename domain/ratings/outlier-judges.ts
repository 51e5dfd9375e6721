/** Outlier-judge detection: judges whose verdicts contradict everyone else's far beyond chance. */

import type { VoteOutcome } from './elo';

/**
 * The method is modelled on the anomalous-user test of the Chatbot Arena paper (Chiang et al., 2024),
 * adapted to a batch report:
 *
 * 1. Each vote gets a p-value against the other judges' verdicts on the same two agents: the
 *    share of those verdicts rarer than this one, plus half the share as common as it (the
 *    judge's own vote counted in, as in a rank test), Lancaster's mid-p. Siding with a clear
 *    majority scores near 1; a verdict nobody else gave scores 1 / (2·(others + 1)).
 * 2. A judge's p-values are combined with Fisher's method, X = -2·Σ ln p, compared with a
 *    chi-squared distribution with 2k degrees of freedom. Fisher rewards consistent
 *    disagreement over many votes rather than one odd verdict.
 * 3. A judge is flagged when the combined p-value is below alpha divided by the number of
 *    judges tested (Bonferroni).
 *
 * Why mid-p: with only three possible verdicts the plain "at least as surprising" p-value is
 * very conservative (a majority verdict scores exactly 1), and Fisher's method compounds that
 * over every vote: in simulation a judge who backed the weaker agent in all of 30 votes went
 * unflagged. For an honest judge, -2·ln of a mid-p averages a little under 2 (the chi-squared
 * mean per vote) with less spread, so the reference stays slightly conservative: over 2,400
 * simulated honest judges the combined p-value fell below 0.05 for 0.25% and none was flagged.
 *
 * Verdicts are read as "first agent better", "second agent better" or "neither" (tie and
 * both-bad together), because that is all a rating sees. Each other judge has one voice per
 * pair, their verdicts there weighted to sum to 1, so a judge who floods one pair cannot
 * become the consensus that honest judges are then measured against.
 */

// Bound once: inside a vm context (Temporal's workflow sandbox, jest) every global lookup such
// as `Math.exp` goes through the context's interceptors, which is slow in a hot loop.
const { exp, log, max, min } = Math;

export interface JudgeVote {
  judgeId: number;
  a: number;
  b: number;
  outcome: VoteOutcome;
}

export interface OutlierJudgeOptions {
  /** Other judges who must have judged a pair before a vote on it is scored; default 10. */
  minOtherJudges?: number;
  /** Scored votes a judge needs before they can be flagged; default 5. */
  minScoredVotes?: number;
  /** Family-wise error rate over all judges tested; default 0.01. */
  alpha?: number;
}

export interface JudgeReport {
  judgeId: number;
  votes: number;
  /** Votes on pairs with enough history from other judges to be scored. */
  scoredVotes: number;
  /** Fisher's statistic, -2·Σ ln p over the scored votes; larger is more anomalous. */
  statistic: number;
  /** Chance of a statistic at least this large from a judge who votes like the others. */
  pValue: number;
  flagged: boolean;
}

type Verdict3 = 0 | 1 | 2;
const VERDICTS: readonly Verdict3[] = [0, 1, 2];

/** One number per verdict kind, indexed by `Verdict3`. */
type PerVerdict = [number, number, number];

interface PairHistory {
  /** Sum over judges of each judge's share of verdicts of each kind on this pair. */
  weights: PerVerdict;
  judges: number;
}

/** Reports every judge, most anomalous first (then by judge id). Deterministic. */
export function findOutlierJudges(votes: readonly JudgeVote[], options: OutlierJudgeOptions = {}): JudgeReport[] {
  const minOtherJudges = options.minOtherJudges ?? 10;
  const minScoredVotes = options.minScoredVotes ?? 5;
  const alpha = options.alpha ?? 0.01;

  const counted = votes.filter((vote) => vote.a !== vote.b);
  const ownCounts = new Map<string, PerVerdict>();
  for (const vote of counted) {
    const key = judgePairKey(vote);
    const counts = ownCounts.get(key) ?? [0, 0, 0];
    counts[verdictOf(vote)] += 1;
    ownCounts.set(key, counts);
  }
  const histories = new Map<string, PairHistory>();
  for (const [key, counts] of ownCounts) {
    const pair = key.slice(key.indexOf('|') + 1);
    const history = histories.get(pair) ?? { weights: [0, 0, 0], judges: 0 };
    const total = counts[0] + counts[1] + counts[2];
    for (const kind of VERDICTS) history.weights[kind] += counts[kind] / total;
    history.judges += 1;
    histories.set(pair, history);
  }

  const tallies = new Map<number, { votes: number; scoredVotes: number; statistic: number }>();
  for (const vote of counted) {
    const tally = tallies.get(vote.judgeId) ?? { votes: 0, scoredVotes: 0, statistic: 0 };
    tallies.set(vote.judgeId, tally);
    tally.votes += 1;
    const key = judgePairKey(vote);
    const own = ownCounts.get(key)!;
    const history = histories.get(key.slice(key.indexOf('|') + 1))!;
    const others = history.judges - 1;
    if (others < minOtherJudges) continue;
    const ownTotal = own[0] + own[1] + own[2];
    const weights: PerVerdict = [
      history.weights[0] - own[0] / ownTotal,
      history.weights[1] - own[1] / ownTotal,
      history.weights[2] - own[2] / ownTotal,
    ];
    tally.scoredVotes += 1;
    tally.statistic += -2 * log(consensusPValue(weights, others, verdictOf(vote)));
  }

  const tested = [...tallies.values()].filter((tally) => tally.scoredVotes >= minScoredVotes).length;
  const reports: JudgeReport[] = [...tallies].map(([judgeId, tally]) => {
    const pValue = chiSquareSurvivalEvenDf(tally.statistic, tally.scoredVotes);
    return {
      judgeId,
      ...tally,
      pValue,
      flagged: tally.scoredVotes >= minScoredVotes && pValue < alpha / tested,
    };
  });
  return reports.sort((x, y) => x.pValue - y.pValue || x.judgeId - y.judgeId);
}

/** Mid-p of `verdict` among the other judges' verdict weights (which sum to `others`). */
function consensusPValue(weights: PerVerdict, others: number, verdict: Verdict3): number {
  // Weights are sums of fractions, so compare with a little slack for rounding.
  const own = weights[verdict];
  let rarer = 0;
  let asCommon = 0;
  for (const weight of weights) {
    if (weight < own - 1e-9) rarer += weight;
    else if (weight <= own + 1e-9) asCommon += weight;
  }
  return min(1, (rarer + 0.5 * (asCommon + 1)) / (others + 1));
}

/**
 * P(X ≥ x) for X chi-squared with 2k degrees of freedom: e^(-x/2)·Σ_{i<k} (x/2)^i / i!,
 * summed in log space so thousands of votes neither overflow nor underflow to a wrong answer.
 */
export function chiSquareSurvivalEvenDf(x: number, k: number): number {
  if (k === 0 || x <= 0) return 1;
  const half = x / 2;
  const logHalf = log(half);
  let logTerm = 0;
  let logMax = 0;
  let scaledSum = 1;
  for (let i = 1; i < k; i++) {
    logTerm += logHalf - log(i);
    if (logTerm > logMax) {
      scaledSum = scaledSum * exp(logMax - logTerm) + 1;
      logMax = logTerm;
    } else {
      scaledSum += exp(logTerm - logMax);
    }
  }
  return min(1, exp(-half + logMax + log(scaledSum)));
}

/** 0: the lower-id agent was better, 1: the higher-id agent, 2: neither. */
function verdictOf(vote: JudgeVote): Verdict3 {
  if (vote.outcome !== 'a' && vote.outcome !== 'b') return 2;
  const winner = vote.outcome === 'a' ? vote.a : vote.b;
  return winner === min(vote.a, vote.b) ? 0 : 1;
}

function judgePairKey(vote: JudgeVote): string {
  return `${vote.judgeId}|${min(vote.a, vote.b)}:${max(vote.a, vote.b)}`;
}
