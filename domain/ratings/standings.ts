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
 * interval neither earns it a rank nor pushes a ranked agent down. Ranked agents come first, by
 * rank, then rating, then agent id (a rank is not always in rating order: a wide interval can
 * share the rank of better-rated agents whose narrow ones are clearly behind others); then the
 * provisional ones, by rating and agent id. This is the order the API lists a board in.
 */
export function standings<T extends { agentId: number; rating: number; votes: number; ciLow: number; ciHigh: number }>(
  entries: readonly T[],
  minVotes: number,
): (T & Standing)[] {
  const byRating = (x: T, y: T) => y.rating - x.rating || x.agentId - y.agentId;
  const ranked = rankByIntervals(entries.filter((entry) => entry.votes >= minVotes)).sort(
    (x, y) => x.rank - y.rank || byRating(x, y),
  );
  const provisional = entries
    .filter((entry) => entry.votes < minVotes)
    .sort(byRating)
    .map((entry) => ({ ...entry, rank: null, provisional: true }));
  return [...ranked.map((entry) => ({ ...entry, provisional: false })), ...provisional];
}
