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
 * The dispatch batch, which writes its rows before the workflow starts their deliveries: with a
 * heartbeat timeout, an attempt lost with its worker (or whose answer was lost while Temporal was
 * down) is retried within 10 s, not after the start-to-close minute, so the rows it wrote do not
 * wait a minute for their workflows. The activity heartbeats while it runs.
 */
export const dispatchBatchActivities = proxyActivities<Activities>({ ...options, heartbeatTimeout: '10 seconds' });

/**
 * The same activities run as local activities, in the workflow task that asks for them: for single
 * idempotent database writes, which need no round trip through the task queue.
 */
export const arenaLocalActivities = proxyLocalActivities<Activities>(options);
