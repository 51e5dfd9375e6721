/** refreshLeaderboard, run by the leaderboard schedule: the fit happens in an activity, never per request. */
import { arenaActivities } from './arena-activities';

export async function refreshLeaderboard(): Promise<string> {
  const { agents, votes, flaggedJudges } = await arenaActivities.refreshLeaderboard();
  return `${agents} agents from ${votes} votes; ${flaggedJudges} judges flagged`;
}
