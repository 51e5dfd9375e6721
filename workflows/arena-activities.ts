/** The main arena's activities as its workflows call them: one timeout and retry policy for the dispatch, votes, live battles and the leaderboard. */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';

type Activities = ReturnType<typeof createActivities>;

const options = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
} as const;

export const arenaActivities = proxyActivities<Activities>(options);

/**
 * The same activities run as local activities, in the workflow task that asks for them: for single
 * idempotent database writes, which need no round trip through the task queue.
 */
export const arenaLocalActivities = proxyLocalActivities<Activities>(options);
