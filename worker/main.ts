/** The worker process (`npm run worker`): polls the arena task queue and runs workflows and activities. */
import { MikroORM } from '@mikro-orm/postgresql';
import { Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { serveMetrics } from './metrics-server';
import { workflowBundleOf } from './workflow-bundle';
import { installWorkerRuntime } from './runtime';
import { resolveLogFormat } from '../infra/logging';
import { ensureSchedules } from './schedules';
import { createActivities } from '../activities';
import { createCodingSessionEndActivities, createWorkspaceActivities } from '../activities/workspaces';
import { isolationWarning, probeOf } from '../infra/sandbox/isolation';
import { sessionEndQueueOf } from '../workflows/contracts';
import { SandboxRuntime, sandboxTaskQueue } from '../infra/sandbox/runtime';
import { SandboxFolderError } from '../infra/sandbox/sandbox-folder';
import {
  ConfigError,
  loadConfig,
  requireRuntime,
  temporalConnectionOptions,
  type RuntimeConfig,
} from '../infra/config';
import { ormConfig } from '../infra/db/orm.config';
import { WebhookClient } from '../infra/webhook/client';
import type { HostResolver } from '../infra/webhook/guarded-lookup';

const SHUTDOWN_GRACE = '20 seconds';

export interface RunningWorker {
  /** The workers' connection: an API in the same process starts workflows on it, eagerly. Closed by `close()`. */
  connection: NativeConnection;
  close(): Promise<void>;
  /** Settles when the worker stops: resolves after a shutdown, rejects with the error that stopped it on its own. */
  stopped: Promise<void>;
  /** Why scorings share the CPU by process rather than by scoring here, when the sandbox runs but has no cpu groups. */
  cpuSharing: string | undefined;
}

export interface WorkerExtras {
  /** A pre-built workflow bundle (tests bundle once and reuse it); otherwise the configured or built one (worker/workflow-bundle.ts), or the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Create or update the arena's schedules (dispatch, leaderboard); default true. Tests drive those steps themselves. */
  schedules?: boolean;
  /** Name resolution for webhook calls; the system's by default. */
  resolveHost?: HostResolver;
}

export async function startWorker(config: RuntimeConfig, extras: WorkerExtras = {}): Promise<RunningWorker> {
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const webhooks = new WebhookClient({ allowPrivate: config.allowPrivateWebhooks, resolveHost: extras.resolveHost });
  let connection: NativeConnection | undefined;
  try {
    connection = await NativeConnection.connect(temporalConnectionOptions(config));
    // Coding sessions' steps come to this worker's own queue: the workspaces it prepared are here.
    const workflowBundle = extras.workflowBundle ?? workflowBundleOf(config.workflowBundle);
    const sandbox = new SandboxRuntime(config.sandbox, sandboxTaskQueue(config.taskQueue));
    await sandbox.claimFolder();
    await sandbox.sweep(orm.em);
    const sandboxWorker = await Worker.create({
      connection,
      namespace: config.temporalNamespace,
      taskQueue: sandbox.taskQueue,
      activities: createWorkspaceActivities({ orm, sandbox }),
      // The steps it runs at once; the API admits no more than these and ARENA_CODING_STEP_QUEUE waiting.
      maxConcurrentActivityTaskExecutions: config.sandbox.capacity.stepSlots,
      shutdownGraceTime: SHUTDOWN_GRACE,
    });
    // Ending sessions (stop, score, remove) has slots of its own: it never waits behind agents' steps.
    const sessionEndWorker = await Worker.create({
      connection,
      namespace: config.temporalNamespace,
      taskQueue: sessionEndQueueOf(sandbox.taskQueue),
      activities: createCodingSessionEndActivities({ orm, sandbox }),
      shutdownGraceTime: SHUTDOWN_GRACE,
    });
    const worker = await Worker.create({
      connection,
      namespace: config.temporalNamespace,
      taskQueue: config.taskQueue,
      ...(workflowBundle ? { workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
      activities: createActivities({
        orm,
        webhooks,
        encryptionKey: config.encryptionKey,
        arena: config.arena,
        publicUrl: config.publicUrl,
        sandbox,
      }),
      stickyQueueScheduleToStartTimeout: config.stickyQueueSeconds * 1000,
      // On a graceful stop, open webhook requests get this long to be answered before they are cut.
      shutdownGraceTime: SHUTDOWN_GRACE,
    });
    if (extras.schedules ?? true) {
      const client = await Connection.connect(temporalConnectionOptions(config));
      try {
        await ensureSchedules(client, config);
      } finally {
        await client.close();
      }
    }
    const running = Promise.all([worker.run(), sandboxWorker.run(), sessionEndWorker.run()]).then(() => undefined);
    const conn = connection;
    const cpuSharing =
      (await sandbox.check()).ok && sandbox.cpu.unavailable
        ? `scorings share the CPU by process, not by scoring (${sandbox.cpu.unavailable})`
        : undefined;
    return {
      connection: conn,
      stopped: running,
      cpuSharing,
      async close() {
        // The workers may already have stopped on their own (a fatal error); closing stays safe.
        for (const w of [worker, sandboxWorker, sessionEndWorker]) if (w.getState() === 'RUNNING') w.shutdown();
        await running.catch(() => undefined);
        await Promise.allSettled([conn.close(), orm.close(), webhooks.close(), sandbox.close()]);
      },
    };
  } catch (err) {
    await Promise.allSettled([connection?.close(), orm.close(), webhooks.close()]);
    throw err;
  }
}

/**
 * `npm run worker` / `arena worker`: the worker, its /metrics on ARENA_WORKER_METRICS_PORT, and a
 * graceful stop on SIGINT/SIGTERM (no new tasks; running activities get the grace time to finish).
 */
export async function runWorkerProcess(): Promise<void> {
  const config = requireRuntime(loadConfig(), ['database', 'temporal', 'key']);
  await installWorkerRuntime({
    logLevel: config.logLevel,
    logFormat: resolveLogFormat(config.logFormat),
    metrics: true,
    shutdownSignals: [],
  });
  const worker = await startWorker(config);
  const sandboxWarning = await isolationWarning(probeOf(config.sandbox));
  if (sandboxWarning) console.warn(`worker: warning: ${sandboxWarning}`);
  if (worker.cpuSharing) console.warn(`worker: note: ${worker.cpuSharing}`);
  const metrics = await serveMetrics(config.workerMetricsPort, config.host, config.metricsToken);
  console.log(`worker polling task queue ${config.taskQueue} on ${config.temporalAddress}; metrics at ${metrics.url}`);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`worker: ${signal}, draining`);
    Promise.all([worker.close(), metrics.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // A worker that stops on its own polls nothing: say why and exit, so the supervisor restarts it.
  worker.stopped.catch((err: unknown) => {
    if (stopping) return;
    stopping = true;
    console.error('worker: stopped by a fatal error', err);
    void Promise.allSettled([worker.close(), metrics.close()]).then(() => process.exit(1));
  });
}

if (require.main === module) {
  runWorkerProcess().catch((err: unknown) => {
    console.error(err instanceof ConfigError || err instanceof SandboxFolderError ? err.message : err);
    process.exit(1);
  });
}
