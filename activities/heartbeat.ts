/** Heartbeats for activities that take long, so Temporal notices a worker that died while they ran. */
import { Context } from '@temporalio/activity';

/** Runs `work` while heartbeating every `everyMs` (the SDK sends at most one per 80% of the heartbeat timeout). */
export async function heartbeating<T>(work: () => Promise<T>, everyMs: number): Promise<T> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}
