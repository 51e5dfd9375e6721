/** The arena worker as the bench runs it: the real startWorker with a pre-built bundle and no schedules, in its own process. */
import { loadConfig, requireRuntime } from '../../infra/config';
import { installWorkerRuntime } from '../../worker/runtime';
import { startWorker } from '../../worker/main';

async function main(): Promise<void> {
  const config = requireRuntime(loadConfig(), ['database', 'temporal', 'key']);
  await installWorkerRuntime({ logLevel: config.logLevel, metrics: true, shutdownSignals: [] });
  const bundle = process.env.BENCH_WORKFLOW_BUNDLE;
  // Dispatch and leaderboard schedules would send main-arena prompts to the bench's agents mid-run.
  const worker = await startWorker(config, {
    schedules: false,
    ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
  });
  process.send?.({ ready: true });
  const stop = () => {
    worker.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
