/** `arena reset`: gives a stuck workflow a new run from its first or last workflow task (Temporal's reset). */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { CommandError, type Print } from './command';

export const RESET_POINTS = ['first', 'last-workflow-task'] as const;
export type ResetPoint = (typeof RESET_POINTS)[number];

const WORKFLOW_TASK_COMPLETED = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED;

export async function resetCommand(
  client: Client,
  workflowId: string,
  to: string,
  reason: string | undefined,
  print: Print,
): Promise<void> {
  if (!(RESET_POINTS as readonly string[]).includes(to))
    throw new CommandError(`--to: must be one of ${RESET_POINTS.join(', ')}`);
  const handle = client.workflow.getHandle(workflowId);
  let runId: string;
  let events;
  try {
    runId = (await handle.describe()).runId;
    events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new CommandError(`no workflow ${workflowId}`);
    throw err;
  }
  const completed = events.filter((e) => e.eventType === WORKFLOW_TASK_COMPLETED);
  const point = to === 'first' ? completed[0] : completed.at(-1);
  if (!point?.eventId) throw new CommandError(`${workflowId} has no completed workflow task to reset to`);
  const { runId: newRunId } = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId, runId },
    reason: reason ?? `arena reset --to ${to}`,
    workflowTaskFinishEventId: point.eventId,
    requestId: randomUUID(),
  });
  print(
    `reset ${workflowId} to event ${point.eventId} (${to}): run ${runId} was terminated, run ${newRunId} continues`,
  );
}
