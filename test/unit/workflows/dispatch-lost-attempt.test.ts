/**
 * A dispatch batch whose attempt is lost (its worker killed after the batch's rows were written,
 * or its completion lost while Temporal was down): the rows have no workflow until the attempt is
 * given up on and retried. Against the time-skipping server with stubbed activities, the attempt
 * that never answers stands for the dead worker; the retry must come within the heartbeat timeout,
 * not the whole start-to-close minute, so a main prompt's row is not left a minute without the
 * workflow that delivers it.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Context } from '@temporalio/activity';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { dispatchArena } from '../../../workflows';
import type { DispatchBatch } from '../../../workflows/contracts';
import { arenaWorkflowBundle, timeSkippingEnvironment } from '../../support/time-skipping';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await Promise.all([timeSkippingEnvironment(), arenaWorkflowBundle()]);
}, 180_000);
afterAll(async () => {
  await env?.teardown();
});

it('retries a dispatch batch whose attempt was lost within seconds, not the minute of its start-to-close timeout', async () => {
  const taskQueue = 'dispatch-lost-attempt';
  const attempts: number[] = [];
  let startMs = 0;
  const activities = {
    beginDispatchStep: async () => {
      startMs = await env.currentTimeMs();
      return { dueAsOf: '2026-01-01T00:00:00Z', startedMs: 0, afterSessionId: 0, childrenPerRun: 100 };
    },
    dispatchMainPromptBatch: async (): Promise<DispatchBatch> => {
      attempts.push((await env.currentTimeMs()) - startMs);
      if (Context.current().info.attempt === 1) {
        // The dead worker: no answer, no heartbeat. Released when Temporal gives the attempt up.
        await new Promise((resolve) => Context.current().cancellationSignal.addEventListener('abort', resolve));
        throw new Error('lost with its worker');
      }
      return {
        deliveries: [
          { sessionId: 1, agentId: 1, kind: 'main', mode: 'push', category: 'general', deadlineSeconds: 20 },
        ],
        more: false,
      };
    },
    deliverPush: async () => ({ status: 'answered' }),
    endDispatchStep: async () => ({ backlog: 0 }),
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities,
    // The lost attempt is cancelled at shutdown, if the old code never gave it up.
    shutdownGraceTime: '1 second',
  });
  // Without a heartbeat timeout the retry waits for the start-to-close minute (in real time: an
  // activity in flight holds the clock); give up well before it.
  const giveUp = new AbortController();
  const timer = setTimeout(() => giveUp.abort(), 40_000);
  const run = env.client.connection.withAbortSignal(giveUp.signal, () =>
    env.client.workflow.execute(dispatchArena, { workflowId: 'dispatch-lost-attempt', taskQueue, args: [] }),
  );
  const served = await worker
    .runUntil(run)
    .catch((err: Error) => {
      throw new Error(`no retry within 40 s (attempts at ${attempts.join(', ')} ms): ${err.message}`);
    })
    .finally(() => clearTimeout(timer));
  expect(served).toBe(1);
  expect(attempts).toHaveLength(2);
  expect(attempts[1]! - attempts[0]!).toBeLessThan(20_000);
  await expect(env.client.workflow.getHandle('delivery-1').result()).resolves.toEqual({ status: 'answered' });
}, 120_000);
