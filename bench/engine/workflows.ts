/** The engine baseline's workflows: the least a delivery can be on Temporal (one activity), and a timer before it. */
import { proxyActivities, sleep } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(tag: string): Promise<void> }>({ startToCloseTimeout: '30 seconds' });

export async function noopDelivery(tag: string): Promise<void> {
  await noop(tag);
}

/** The deadline baseline: a workflow timer, then the activity that would record the missed deadline. */
export async function timerThenNoop(tag: string, ms: number): Promise<void> {
  await sleep(ms);
  await noop(tag);
}
