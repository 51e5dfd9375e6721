/** The worker process (`npm run worker`): polls the arena task queue and runs workflows and activities. */
import { NativeConnection, Worker } from '@temporalio/worker';
import { ConfigError, loadConfig, requireRuntime, type RuntimeConfig } from '../infra/config';

export interface RunningWorker {
  close(): Promise<void>;
}

export async function startWorker(config: RuntimeConfig): Promise<RunningWorker> {
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: {},
  });
  const running = worker.run();
  return {
    async close() {
      // The worker may already have stopped on its own (a fatal error); closing stays safe.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
    },
  };
}

if (require.main === module) {
  (async () => {
    const config = requireRuntime(loadConfig(), ['database', 'temporal', 'key']);
    const worker = await startWorker(config);
    console.log(`worker polling task queue ${config.taskQueue} on ${config.temporalAddress}`);
    const stop = () => {
      worker.close().then(() => process.exit(0), () => process.exit(1));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  })().catch((err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  });
}
