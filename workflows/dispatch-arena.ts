/** dispatchArena, run by the dispatch schedule: one step of the main arena, a pool prompt to every due agent. */
import { ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { arenaActivities } from './arena-activities';
import { deliveryStartOptions } from './contracts';
import { deliverPrompt } from './deliver-prompt';

/** Each prompt goes as its own delivery, which outlives this step. */
export async function dispatchArena(): Promise<number> {
  const deliveries = await arenaActivities.dispatchMainPrompts({ dispatchKey: workflowInfo().runId });
  for (const delivery of deliveries) {
    await startChild(deliverPrompt, {
      ...deliveryStartOptions(delivery),
      args: [delivery],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  }
  return deliveries.length;
}
