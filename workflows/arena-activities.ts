/** The main arena's activities as its workflows call them: one timeout and retry policy for the dispatch, votes, live battles and the leaderboard. */
import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';

type Activities = ReturnType<typeof createActivities>;

export const arenaActivities = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
