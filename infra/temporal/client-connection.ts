/**
 * The API's connection to Temporal, closed without a stray retry.
 *
 * The client retries a call that failed in passing (UNAVAILABLE, RESOURCE_EXHAUSTED) on a timer. A
 * retry whose timer fires after the connection closed throws "Channel has been shut down" from the
 * timer, where no caller can catch it: an uncaught exception in a process that is shutting down,
 * and in a test run, a failed file. So once `close` is called no retry is scheduled, and the close
 * waits out those already scheduled (at most the client's longest backoff, 5 s; usually none) before
 * it closes the channel; a call under way then ends with its status, never retried again.
 */
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ClientConnection {
  connection: Connection;
  close(): Promise<void>;
}

export async function connectClient(options: ConnectionOptions): Promise<ClientConnection> {
  const retries = defaultGrpcRetryOptions();
  let closing = false;
  let lastRetryDueMs = 0;
  const connection = await Connection.connect({
    ...options,
    interceptors: [
      makeGrpcRetryInterceptor({
        retryableDecider: (attempt, status) => !closing && retries.retryableDecider(attempt, status),
        delayFunction: (attempt, status) => {
          const ms = retries.delayFunction(attempt, status);
          lastRetryDueMs = Math.max(lastRetryDueMs, Date.now() + ms);
          return ms;
        },
      }),
    ],
  });
  return {
    connection,
    async close() {
      closing = true;
      const waitMs = lastRetryDueMs - Date.now();
      // A timer due no later than this one's fires first: the retry has started by then.
      if (waitMs > 0) await sleep(waitMs + 10);
      await connection.close();
    },
  };
}
