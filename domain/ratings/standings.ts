/** Leaderboard standings: ranks among agents with enough votes; the others are listed as provisional, unranked. */

import { rankByIntervals } from './bradley-terry';

export interface Standing {
  /** Null while the agent is provisional. */
  rank: number | null;
  /** Fewer votes than the arena's minimum: its interval is too wide for a rank to mean anything. */
  provisional: boolean;
}

/**
 * Ranks count only agents clearly ahead among the ranked ones: a provisional agent's wide
 * interval neither earns it a rank nor pushes a ranked agent down. Ranked agents come first,
 * then the provisional ones, each group in the order given (best first from the fit).
 */
export function standings<T extends { votes: number; ciLow: number; ciHigh: number }>(
  entries: readonly T[],
  minVotes: number,
): (T & Standing)[] {
  const ranked = rankByIntervals(entries.filter((entry) => entry.votes >= minVotes));
  const provisional = entries
    .filter((entry) => entry.votes < minVotes)
    .map((entry) => ({ ...entry, rank: null, provisional: true }));
  return [...ranked.map((entry) => ({ ...entry, provisional: false })), ...provisional];
}
