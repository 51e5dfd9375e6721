/** dispatchArena, run by the dispatch schedule: one step of the main arena, a pool prompt to every due agent. */
import {
  continueAsNew,
  deprecatePatch,
  ParentClosePolicy,
  patched,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { arenaActivities, dispatchBatchActivities } from './arena-activities';
import { deliveryStartOptions, type DeliveryInput, type DispatchCursor } from './contracts';
import { deliverPrompt } from './deliver-prompt';

/**
 * Every due agent in one step, in batches. Retired (docs/decisions.md, "Workflow versions"): no step
 * begun before it (one batch a step) runs any more; the marker stays for the steps begun since.
 */
const EVERY_DUE_AGENT_PATCH = 'dispatch-every-due-agent';
/** The batch activity with a heartbeat timeout (arena-activities.ts, `dispatchBatchActivities`). */
const BATCH_HEARTBEAT_PATCH = 'dispatch-batch-heartbeat';

/**
 * Serves every agent due when the step began, a batch (one transaction) at a time, longest waiting
 * first, up to ARENA_DISPATCH_STEP_MAX. Each prompt goes as its own delivery, which outlives this
 * step. A run continues as new after ARENA_DISPATCH_CHILDREN_PER_RUN deliveries (or when Temporal
 * suggests it), carrying the cursor: the workflow id stays, so the schedule still sees one step
 * running and skips the next until it ends. Returns the agents served.
 */
export async function dispatchArena(cursor?: DispatchCursor): Promise<number> {
  if (!cursor) deprecatePatch(EVERY_DUE_AGENT_PATCH);
  let step: DispatchCursor = cursor ?? {
    ...(await arenaActivities.beginDispatchStep()),
    stepKey: workflowInfo().firstExecutionRunId,
    batch: 0,
    served: 0,
  };
  let startedThisRun = 0;
  for (;;) {
    const batches = patched(BATCH_HEARTBEAT_PATCH) ? dispatchBatchActivities : arenaActivities;
    const { deliveries, more } = await batches.dispatchMainPromptBatch(step);
    await startDeliveries(deliveries);
    startedThisRun += deliveries.length;
    step = { ...step, batch: step.batch + 1, served: step.served + deliveries.length };
    if (!more) break;
    if (startedThisRun >= step.childrenPerRun || workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof dispatchArena>(step);
    }
  }
  await arenaActivities.endDispatchStep(step);
  return step.served;
}

/** Started together: the batch's start commands go out in one workflow task, not one task each. */
async function startDeliveries(deliveries: DeliveryInput[]): Promise<void> {
  await Promise.all(
    deliveries.map((delivery) =>
      startChild(deliverPrompt, {
        ...deliveryStartOptions(delivery),
        args: [delivery],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      }),
    ),
  );
}
