/**
 * runGym (`gym-<agent id>-<attempt>`): sends every gym prompt that has no good answer yet, one
 * delivery at a time, and repeats on a later cycle until each has one; then marks the gym complete.
 * An inactive agent pauses it; deactivation or a restart (a newer attempt) ends it.
 */
import {
  continueAsNew,
  executeChild,
  ParentClosePolicy,
  proxyActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { deliveryStartOptions, type GymInput } from './contracts';
import { deliverPrompt } from './deliver-prompt';

type Activities = ReturnType<typeof createActivities>;

const { planGymCycle, createGymSession, completeGym } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Keeps the history short: a gym that keeps failing is carried over to a fresh run now and then. */
const MAX_ITERATIONS_PER_RUN = 50;

export async function runGym(input: GymInput): Promise<string> {
  let cycle = input.cycle ?? 1;
  let justSent = false;
  for (let iterations = 0; ; iterations++) {
    const plan = await planGymCycle({ agentId: input.agentId, attempt: input.attempt });
    if (plan.action === 'stop') return plan.reason;
    if (plan.action === 'complete') {
      await completeGym({ agentId: input.agentId, attempt: input.attempt });
      return 'complete';
    }
    if (plan.action === 'wait' || justSent) {
      // Errored prompts go again on a later cycle, not at once; an inactive agent is looked at again later.
      justSent = false;
      await sleep(input.retrySeconds * 1000);
      if (iterations >= MAX_ITERATIONS_PER_RUN || workflowInfo().continueAsNewSuggested) {
        return continueAsNew<typeof runGym>({ ...input, cycle });
      }
      continue;
    }
    for (const promptId of plan.promptIds) {
      const delivery = await createGymSession({ agentId: input.agentId, attempt: input.attempt, cycle, promptId });
      if (!delivery) break; // the agent can no longer take prompts; the next plan says why
      await executeChild(deliverPrompt, {
        ...deliveryStartOptions(delivery),
        args: [delivery],
        // A restarted gym must not cut off a delivery that is under way.
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    }
    cycle++;
    justSent = true;
  }
}
