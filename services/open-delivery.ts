/**
 * Opening a delivery: its session is written first, then its workflow is started. The one way the
 * use cases start a delivery's workflow (an owner's sandbox prompt, a coding session, a live
 * battle's two sides, an operator's redelivery).
 */
import type { FastifyBaseLogger } from 'fastify';
import { ArenaError } from '../domain/errors';

/** What a caller hears when Temporal cannot take the start: the arena's fault, worth trying again. */
export const deliveryUnavailable = () =>
  new ArenaError('unavailable', 'the delivery service is unavailable; try again shortly', 5);

export interface Opening {
  /** Starts the workflow(s) of the sessions already written. */
  start: () => Promise<unknown>;
  /** Ends what was written, so no feed shows it pending for ever: nothing will deliver it. */
  closeUnstarted: (error: string) => Promise<void>;
  /** Where a failed start is logged; the caller's request log, when it has one. */
  log?: Pick<FastifyBaseLogger, 'error'>;
  /** Logged with a failed start: the session or battle ids. */
  context: Record<string, unknown>;
}

/** Starts the written delivery; a start that fails closes it as the arena's own failure and answers 503. */
export async function openDelivery({ start, closeUnstarted, log, context }: Opening): Promise<void> {
  try {
    await start();
  } catch (err) {
    await closeUnstarted('the delivery could not be started');
    log?.error({ err, ...context }, 'could not start a delivery');
    throw deliveryUnavailable();
  }
}
