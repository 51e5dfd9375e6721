/** The engine baseline's worker process: the same runtime and worker options as the arena's, with a no-op activity that reports when it ran. */
import { NativeConnection, Worker } from '@temporalio/worker';
import { wallNow } from '../lib/clock';
import { installWorkerRuntime } from '../../worker/runtime';

import { ENGINE_TASK_QUEUE } from './task-queue';

let pending: Array<[string, number]> = [];

async function main(): Promise<void> {
  await installWorkerRuntime({ logLevel: process.env.LOG_LEVEL ?? 'info', metrics: true, shutdownSignals: [] });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: ENGINE_TASK_QUEUE,
    workflowBundle: { codePath: process.env.BENCH_ENGINE_BUNDLE! },
    activities: {
      async noop(tag: string): Promise<void> {
        pending.push([tag, wallNow()]);
      },
    },
  });
  // Batched, as in the agent farm: one IPC message per activity would cost more than the activity.
  setInterval(() => {
    if (pending.length === 0) return;
    process.send?.({ arrivals: pending });
    pending = [];
  }, 20).unref();
  const running = worker.run();
  process.send?.({ ready: true });
  const stop = () => {
    worker.shutdown();
    running
      .finally(() => connection.close().finally(() => process.exit(0)))
      .catch((err: unknown) => {
        console.error(err);
        process.exit(1);
      });
  };
  process.once('SIGTERM', stop);
  process.once('disconnect', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
