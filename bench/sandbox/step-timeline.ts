/**
 * Where a step's round trip goes, read from the session's real workflow history: the request's
 * way to the workflow (API, update admitted), the activity waiting for the worker, the activity
 * itself (its rows and the isolated command), the way back into the workflow, and the reply.
 * Event times are the server's clock, the request's are this process's: the same machine.
 */
import type { Client } from '@temporalio/client';
import { summarize } from '../lib/stats';

/** One timed request: when it was sent and answered, in epoch milliseconds. */
export interface TimedRequest {
  sentAt: number;
  answeredAt: number;
}

export interface StepTimeline {
  /** Request sent → the update accepted by the workflow. */
  toWorkflowMs: number;
  /** Accepted → the activity started on the session's worker. */
  toActivityMs: number;
  /** The activity: reading the step, the isolated command, writing its result. */
  activityMs: number;
  /** Activity completed → the update completed. */
  backToWorkflowMs: number;
  /** Update completed → the reply received. */
  replyMs: number;
  /** Of the session's workflow tasks: scheduled → taken by the worker, and taken → completed. */
  workflowTaskWaitMs: number;
  workflowTaskRunMs: number;
  /** Of its step activities: scheduled → started. */
  activityWaitMs: number;
}

type HistoryEvent = NonNullable<
  Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']
>[number];

function millisOf(event: HistoryEvent): number {
  const t = event.eventTime;
  if (!t) return NaN;
  return Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6;
}

/**
 * Medians of each part over the steps of one session. `requests` are the session's exec requests
 * in order; they are matched to the history's accepted updates in order.
 */
export async function stepTimeline(
  client: Client,
  workflowId: string,
  requests: readonly TimedRequest[],
): Promise<StepTimeline> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const accepted: number[] = [];
  const updateCompleted: number[] = [];
  // The runStep activities by their scheduled event, each with its start and completion time.
  const steps = new Map<string, { scheduled: number; started?: number; completed?: number }>();
  const taskScheduled = new Map<string, number>();
  const taskStarted = new Map<string, number>();
  const workflowTaskWaitMs: number[] = [];
  const workflowTaskRunMs: number[] = [];
  const idOf = (id: unknown) => String(id);
  for (const event of history.events ?? []) {
    if (event.workflowExecutionUpdateAcceptedEventAttributes) accepted.push(millisOf(event));
    if (event.workflowExecutionUpdateCompletedEventAttributes) updateCompleted.push(millisOf(event));
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'runStep')
      steps.set(idOf(event.eventId), { scheduled: millisOf(event) });
    if (event.workflowTaskScheduledEventAttributes) taskScheduled.set(idOf(event.eventId), millisOf(event));
    const taskStart = event.workflowTaskStartedEventAttributes;
    if (taskStart) {
      taskStarted.set(idOf(event.eventId), millisOf(event));
      const scheduledAt = taskScheduled.get(idOf(taskStart.scheduledEventId));
      if (scheduledAt !== undefined) workflowTaskWaitMs.push(millisOf(event) - scheduledAt);
    }
    const taskDone = event.workflowTaskCompletedEventAttributes;
    if (taskDone) {
      const startedAt = taskStarted.get(idOf(taskDone.startedEventId));
      if (startedAt !== undefined) workflowTaskRunMs.push(millisOf(event) - startedAt);
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const step = steps.get(idOf(started.scheduledEventId));
      if (step) step.started = millisOf(event);
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      const step = steps.get(idOf(completed.scheduledEventId));
      if (step) step.completed = millisOf(event);
    }
  }
  const activities = [...steps.values()];
  const count = Math.min(requests.length, accepted.length, updateCompleted.length, activities.length);
  const parts: Record<'toWorkflowMs' | 'toActivityMs' | 'activityMs' | 'backToWorkflowMs' | 'replyMs', number[]> = {
    toWorkflowMs: [],
    toActivityMs: [],
    activityMs: [],
    backToWorkflowMs: [],
    replyMs: [],
  };
  for (let i = 0; i < count; i++) {
    const request = requests[i]!;
    const activity = activities[i]!;
    if (activity.started === undefined || activity.completed === undefined) continue;
    parts.toWorkflowMs.push(accepted[i]! - request.sentAt);
    parts.toActivityMs.push(activity.started - accepted[i]!);
    parts.activityMs.push(activity.completed - activity.started);
    parts.backToWorkflowMs.push(updateCompleted[i]! - activity.completed);
    parts.replyMs.push(request.answeredAt - updateCompleted[i]!);
  }
  const median = (xs: number[]) => Math.round(summarize(xs).p50 * 10) / 10;
  return {
    toWorkflowMs: median(parts.toWorkflowMs),
    toActivityMs: median(parts.toActivityMs),
    activityMs: median(parts.activityMs),
    backToWorkflowMs: median(parts.backToWorkflowMs),
    replyMs: median(parts.replyMs),
    workflowTaskWaitMs: median(workflowTaskWaitMs),
    workflowTaskRunMs: median(workflowTaskRunMs),
    activityWaitMs: median(activities.flatMap((a) => (a.started === undefined ? [] : [a.started - a.scheduled]))),
  };
}
