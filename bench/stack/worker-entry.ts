/**
 * The arena worker as the bench runs it: the real startWorker with a pre-built bundle and no
 * schedules (unless BENCH_SCHEDULES=1), in its own process. With BENCH_EMBEDDED_API=1 the API runs
 * here too, on the worker's connection, as `npm start` runs them (eager workflow start).
 */
import { loadConfig, requireRuntime } from '../../infra/config';
import { installWorkerRuntime } from '../../worker/runtime';
import { startWorker } from '../../worker/main';
import { serveMetrics } from '../../worker/metrics-server';
import { startApi } from '../../api/server';

async function main(): Promise<void> {
  const config = requireRuntime(loadConfig(), ['database', 'temporal', 'key']);
  await installWorkerRuntime({ logLevel: config.logLevel, logFormat: 'json', metrics: true, shutdownSignals: [] });
  const bundle = process.env.BENCH_WORKFLOW_BUNDLE;
  // Dispatch and leaderboard schedules would send main-arena prompts to the bench's agents mid-run;
  // the soak wants them (BENCH_SCHEDULES=1).
  const worker = await startWorker(config, {
    schedules: process.env.BENCH_SCHEDULES === '1',
    ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
  });
  const api = process.env.BENCH_EMBEDDED_API === '1' ? await startApi(config, worker.connection) : undefined;
  // As `npm run worker` serves them (the soak reads the heap there); ARENA_WORKER_METRICS_PORT=0 picks a free port.
  const metrics = await serveMetrics(config.workerMetricsPort, config.host, config.metricsToken);
  console.log(`bench worker ready; metrics at ${metrics.url}`);
  process.send?.({ ready: true });
  const stop = () => {
    (api?.close() ?? Promise.resolve())
      .then(() => Promise.all([worker.close(), metrics.close()]))
      .then(
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
