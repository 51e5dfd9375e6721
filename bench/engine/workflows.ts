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
