/** The engine baseline's workflows: the least a delivery can be on Temporal (one activity), a timer before it, and a sandbox session's step. */
import { condition, defineSignal, defineUpdate, proxyActivities, setHandler, sleep } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(tag: string): Promise<void> }>({ startToCloseTimeout: '30 seconds' });

export async function noopDelivery(tag: string): Promise<void> {
  await noop(tag);
}

/** The deadline baseline: a workflow timer, then the activity that would record the missed deadline. */
export async function timerThenNoop(tag: string, ms: number): Promise<void> {
  await sleep(ms);
  await noop(tag);
}

/**
 * The sandbox baseline: a session whose steps arrive as updates, each run by one activity on a
 * second task queue (a worker's own, in the arena) that runs the isolated command; no API, no rows.
 */
export const isolatedStepUpdate = defineUpdate<number>('isolatedStep');
export const endSteps = defineSignal('endSteps');

export async function stepSession(stepQueue: string): Promise<void> {
  const { isolatedStep } = proxyActivities<{ isolatedStep(): Promise<number> }>({
    taskQueue: stepQueue,
    startToCloseTimeout: '1 minute',
  });
  let ended = false;
  setHandler(isolatedStepUpdate, () => isolatedStep());
  setHandler(endSteps, () => void (ended = true));
  await condition(() => ended);
}

/**
 * The push figure's same-job baseline (c): the arena's job for one delivery with nothing of the
 * arena's: one activity that reads the row, signs and POSTs the prompt, and records the answer.
 */
export async function sameJobDelivery(id: number): Promise<void> {
  const { sameJobPush } = proxyActivities<{ sameJobPush(id: number): Promise<void> }>({
    startToCloseTimeout: '60 seconds',
    retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
  });
  await sameJobPush(id);
}
