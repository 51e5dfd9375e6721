/**
 * The engine baseline's worker process: the same runtime and worker options as the arena's, with a
 * no-op activity that reports when it ran; with BENCH_ENGINE_SANDBOX_DIR, also a second worker on
 * the step queue whose activity runs the sandbox figure's command isolated, in a workspace of its own.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { wallNow } from '../lib/clock';
import { loadConfig } from '../../infra/config';
import { runIsolated } from '../../infra/sandbox/isolation';
import { prepareWorkspace, removeWorkspace, type Workspace } from '../../infra/sandbox/workspaces';
import { installWorkerRuntime } from '../../worker/runtime';
import { STEP_COMMAND } from '../sandbox/step-command';
import { ENGINE_STEP_TASK_QUEUE, ENGINE_TASK_QUEUE } from './task-queue';

/** A worker on the step queue running the isolated command, with the workspace it runs in. */
async function startStepWorker(
  connection: NativeConnection,
  dir: string,
): Promise<{ worker: Worker; workspace: Workspace }> {
  const settings = { ...loadConfig().sandbox, dir };
  // A uid at the top of the range, below the isolation check's: the bench's sessions lease from the bottom.
  const workspace = await prepareWorkspace(1_999_999_998, settings.uidBase + settings.uidCount - 3, [], settings);
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: ENGINE_STEP_TASK_QUEUE,
    activities: {
      async isolatedStep(): Promise<number> {
        const result = await runIsolated({
          workspace,
          command: STEP_COMMAND,
          timeoutSeconds: 60,
          limits: settings.limits,
        });
        return result.exit_code;
      },
    },
  });
  return { worker, workspace };
}

let pending: Array<[string, number]> = [];

async function main(): Promise<void> {
  await installWorkerRuntime({
    logLevel: process.env.LOG_LEVEL ?? 'info',
    logFormat: 'json',
    metrics: true,
    shutdownSignals: [],
  });
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
  const sandboxDir = process.env.BENCH_ENGINE_SANDBOX_DIR;
  const steps = sandboxDir ? await startStepWorker(connection, sandboxDir) : undefined;
  const running = Promise.all([worker.run(), steps?.worker.run()]);
  process.send?.({ ready: true });
  const stop = () => {
    worker.shutdown();
    steps?.worker.shutdown();
    running
      .finally(() => (steps ? removeWorkspace(steps.workspace) : undefined))
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
