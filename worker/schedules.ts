/**
 * The arena's Temporal Schedules: the dispatch step, the leaderboard refresh and the hourly
 * retention. Created when a worker starts, and brought up to date (interval, task queue, arguments)
 * if they already exist.
 */
import { Client, ScheduleAlreadyRunning, type Connection, type ScheduleOptions } from '@temporalio/client';
import type { RuntimeConfig } from '../infra/config';
import { applyRetention, dispatchArena, refreshLeaderboard } from '../workflows';

/** Schedule ids carry the task queue, so arenas sharing a namespace keep apart. */
export function scheduleIds(taskQueue: string): { dispatch: string; leaderboard: string; retention: string } {
  const suffix = taskQueue === 'arena' ? '' : `-${taskQueue}`;
  return {
    dispatch: `arena-dispatch${suffix}`,
    leaderboard: `arena-leaderboard${suffix}`,
    retention: `arena-retention${suffix}`,
  };
}

export async function ensureSchedules(connection: Connection, config: RuntimeConfig): Promise<void> {
  const client = new Client({ connection, namespace: config.temporalNamespace });
  const ids = scheduleIds(config.taskQueue);
  const schedules: ScheduleOptions[] = [
    {
      scheduleId: ids.dispatch,
      spec: { intervals: [{ every: `${config.arena.dispatchIntervalSeconds}s` }] },
      action: {
        type: 'startWorkflow',
        workflowType: dispatchArena,
        workflowId: `dispatch${ids.dispatch.slice('arena-dispatch'.length)}`,
        taskQueue: config.taskQueue,
        args: [],
      },
      // A step still running when the next is due is not doubled; steps missed during an outage are not replayed.
      policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
      memo: { about: 'Sends pool prompts to due agents' },
    },
    {
      scheduleId: ids.leaderboard,
      spec: { intervals: [{ every: `${config.arena.leaderboardIntervalSeconds}s` }] },
      action: {
        type: 'startWorkflow',
        workflowType: refreshLeaderboard,
        workflowId: `leaderboard${ids.leaderboard.slice('arena-leaderboard'.length)}`,
        taskQueue: config.taskQueue,
        args: [],
      },
      policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
      memo: { about: 'Refits Bradley-Terry ratings and intervals, flags outlier judges' },
    },
    {
      scheduleId: ids.retention,
      spec: { intervals: [{ every: '1h' }] },
      action: {
        type: 'startWorkflow',
        workflowType: applyRetention,
        workflowId: `retention${ids.retention.slice('arena-retention'.length)}`,
        taskQueue: config.taskQueue,
        args: [{ codingStepDays: config.sandbox.stepRetentionDays, workItemDays: config.retention.workItemDays }],
      },
      policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
      memo: {
        about:
          'Cuts the steps of coding sessions past their retention down to their transcript, deletes settled work items',
      },
    },
  ];
  for (const options of schedules) {
    try {
      await client.schedule.create(options);
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await client.schedule
        .getHandle(options.scheduleId)
        .update((previous) => ({ ...previous, spec: options.spec, action: options.action }));
    }
  }
}
