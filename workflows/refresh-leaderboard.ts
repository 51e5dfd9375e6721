/** refreshLeaderboard, run by the leaderboard schedule: the fit happens in an activity, never per request. */
import { patched, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { arenaActivities } from './arena-activities';

/**
 * Every board of a large arena takes minutes to fit (a million votes: about four), past the arena
 * activities' one minute. The activity beats while its threads fit, so a lost worker is noticed
 * within a minute all the same.
 */
const refresh = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export async function refreshLeaderboard(): Promise<string> {
  const activities = patched('refresh-minutes-with-heartbeats') ? refresh : arenaActivities;
  const { agents, votes, flaggedJudges } = await activities.refreshLeaderboard();
  return `${agents} agents from ${votes} votes; ${flaggedJudges} judges flagged`;
}
