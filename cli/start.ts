/** `npm start`: the whole arena in one process tree, with embedded PostgreSQL and Temporal unless configured otherwise. */
import path from 'node:path';
import { startApi } from '../api/server';
import { startWorker } from '../worker/main';
import { installWorkerRuntime } from '../worker/runtime';
import { ConfigError, loadConfig, type Config, type RuntimeConfig } from '../infra/config';
import { createLogger, resolveLogFormat } from '../infra/logging';
import { migrateDatabase } from '../infra/db/migrate';
import { findOrInstallBubblewrap } from '../infra/embedded/bubblewrap';
import { prepareDataFolder } from '../infra/embedded/data-folder';
import { readOrCreateEncryptionKey } from '../infra/embedded/encryption-key';
import { startEmbeddedPostgres } from '../infra/embedded/postgres';
import { openLogFile, type LogFile } from '../infra/embedded/log-files';
import { findOrInstallTemporalCli } from '../infra/embedded/temporal-cli';
import { startTemporalDevServer } from '../infra/embedded/temporal-server';
import { isolationProblem, probeOf } from '../infra/sandbox/isolation';
import { featureLines } from './start-banner';

interface Stoppable {
  name: string;
  stop(): Promise<void>;
}

/** Filled in as things come up; shutdown stops them in the reverse order of dependence. */
const started: { api?: Stoppable; worker?: Stoppable; temporal?: Stoppable; postgres?: Stoppable } = {};
const STOP_STEP_TIMEOUT_MS = 30_000;
const SIGNAL_ECHO_MS = 1_000;
let firstSignalAt = 0;
let startupFinished = false;
let stopRequested = false;
let shuttingDown = false;
/** What a stop after an interrupted start-up exits with: 1 once something has crashed. */
let interruptedExitCode = 0;
/** The embedded servers' log files, closed last. */
const logFiles: LogFile[] = [];

class StartupInterrupted extends Error {}

/** Start-up and shutdown progress: `[arena] ...` beside JSON logs, a pretty line of process `arena` on a terminal. */
let say = (line: string): void => console.log(`[arena] ${line}`);

/** `npm start` / `arena start`: runs until a signal, then stops the API, the worker, Temporal and PostgreSQL in that order. */
export async function runEmbeddedStack(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const logFormat = resolveLogFormat(config.logFormat);
  if (logFormat === 'pretty') {
    const progress = createLogger('info', { name: 'arena', format: 'pretty' });
    say = (line) => progress.info(line);
  }
  // By default the Temporal SDK stops every worker by itself when a signal arrives, before
  // the API (which still starts workflows) is closed; here the shutdown below does it in order.
  await installWorkerRuntime({ logLevel: config.logLevel, logFormat, metrics: true, shutdownSignals: [] });
  process.on('uncaughtException', (err) => crashed(err));
  process.on('unhandledRejection', (reason) => crashed(reason));

  try {
    const { runtime, apiUrl, temporalUiUrl, hasTrustedJudge, codingOff } = await startStack(config);
    startupFinished = true;
    console.log(
      [
        '',
        'Agent Arena is running.',
        `  API:          ${apiUrl}`,
        ...(temporalUiUrl ? [`  Temporal UI:  ${temporalUiUrl}`] : []),
        `  Data folder:  ${config.dataDir}`,
        ...(started.postgres || started.temporal ? [`  Server logs:  ${path.join(config.dataDir, 'logs')}`] : []),
        `  Temporal:     ${runtime.temporalAddress} (namespace ${runtime.temporalNamespace})`,
        ...featureLines({ hasTrustedJudge, codingOff }),
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  } catch (err) {
    if (err instanceof StartupInterrupted) return shutdown(interruptedExitCode);
    console.error(`\n[arena] start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return shutdown(1);
  }
}

async function startStack(config: Config): Promise<{
  runtime: RuntimeConfig;
  apiUrl: string;
  temporalUiUrl?: string;
  hasTrustedJudge: boolean;
  codingOff?: string;
}> {
  const logDir = path.join(config.dataDir, 'logs');
  const fileLog = (name: string) => {
    const file = openLogFile(logDir, name, config.retention);
    logFiles.push(file);
    return file.write;
  };

  if (!config.databaseUrl || !config.temporalAddress || !config.encryptionKey)
    await prepareDataFolder(config.dataDir, say);

  // Both servers start at once; whichever comes up is recorded even if the other fails, so it gets stopped.
  const database = async (): Promise<string> => {
    if (config.databaseUrl) return config.databaseUrl;
    say(`starting PostgreSQL on 127.0.0.1:${config.pgPort}`);
    const pg = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      port: config.pgPort,
      log: fileLog('postgres.log'),
    });
    started.postgres = { name: 'PostgreSQL', stop: pg.stop };
    return pg.url;
  };
  const temporal = async (): Promise<{ address: string; uiUrl?: string }> => {
    if (config.temporalAddress) return { address: config.temporalAddress };
    const cliPath = await findOrInstallTemporalCli({
      explicitPath: config.temporalCliPath,
      toolDir: path.join(config.dataDir, 'tools'),
      log: say,
    });
    say(`starting the Temporal dev server on 127.0.0.1:${config.temporalPort}`);
    const server = await startTemporalDevServer({
      cliPath,
      dataDir: config.dataDir,
      port: config.temporalPort,
      uiPort: config.temporalUiPort,
      namespace: config.temporalNamespace,
      retentionDays: config.retention.temporalDays,
      log: fileLog('temporal.log'),
    });
    started.temporal = { name: 'Temporal dev server', stop: server.stop };
    return server;
  };
  const [databaseUrl, temporalServer, encryptionKey] = await allOrFirstError([
    database(),
    temporal(),
    config.encryptionKey ? Promise.resolve(config.encryptionKey) : readOrCreateEncryptionKey(config.dataDir),
  ] as const);
  checkpoint();

  const runtime: RuntimeConfig = { ...config, databaseUrl, temporalAddress: temporalServer.address, encryptionKey };
  say('migrating the database');
  await migrateDatabase(databaseUrl, config.sandboxTasksDir);
  checkpoint();
  // Coding sessions run every command under bubblewrap: fetched here like the Temporal CLI (as root).
  const bubblewrap = await findOrInstallBubblewrap({ log: say }).then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  const codingOff = bubblewrap
    ? `isolation unavailable: ${bubblewrap}`
    : await isolationProblem(probeOf(config.sandbox));
  if (codingOff) say(`warning: coding sandbox sessions will end as error: ${codingOff}`);
  say('starting the worker');
  const worker = await startWorker(runtime);
  started.worker = { name: 'worker', stop: () => worker.close() };
  if (worker.cpuSharing) say(`note: ${worker.cpuSharing}`);
  checkpoint();
  say('starting the API');
  // On the worker's connection: new workflows' first tasks come back with the start, to this worker.
  const api = await startApi(runtime, worker.connection);
  started.api = { name: 'API', stop: () => api.close() };
  checkpoint();
  return {
    runtime,
    apiUrl: api.url,
    temporalUiUrl: temporalServer.uiUrl,
    hasTrustedJudge: api.hasTrustedJudge,
    codingOff,
  };
}

/** Like Promise.all, but waits for every promise before failing, so nothing is left starting unseen. */
async function allOrFirstError<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** A signal during start-up is honoured between steps: a half-started step cannot be stopped cleanly. */
function checkpoint(): void {
  if (stopRequested) throw new StartupInterrupted();
}

function onSignal(signal: NodeJS.Signals): void {
  if (stopRequested || shuttingDown) {
    // Ctrl-C signals the whole process group, and a wrapper (npm, tsx) may pass the same signal
    // on to us as well: a repeat within moments is that echo, not someone asking to force the exit.
    if (Date.now() - firstSignalAt < SIGNAL_ECHO_MS) return;
    // The exit handlers of the embedded servers still signal them on the way out.
    console.error(`\n[arena] ${signal} again: exiting without waiting`);
    process.exit(1);
  }
  stopRequested = true;
  firstSignalAt = Date.now();
  if (startupFinished) {
    void shutdown(0);
  } else {
    say(`${signal}: stopping once the current start-up step is done (again to force)`);
  }
}

function crashed(reason: unknown): void {
  console.error('[arena] unexpected error:', reason);
  if (startupFinished) {
    void shutdown(1);
  } else {
    // Stopping now could miss what the running start-up step is about to start.
    stopRequested = true;
    interruptedExitCode = 1;
  }
}

async function shutdown(code: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  say('stopping');
  let clean = true;
  for (const part of [started.api, started.worker, started.temporal, started.postgres]) {
    if (!part) continue;
    try {
      await withTimeout(
        part.stop(),
        STOP_STEP_TIMEOUT_MS,
        `${part.name} did not stop within ${STOP_STEP_TIMEOUT_MS / 1000} s`,
      );
      say(`${part.name} stopped`);
    } catch (err) {
      clean = false;
      console.error(`[arena] stopping the ${part.name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  // The servers' last lines are written out before the process ends.
  await Promise.allSettled(logFiles.map((file) => file.close()));
  process.exit(clean ? code : 1);
}

function withTimeout(work: Promise<void>, ms: number, message: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

if (require.main === module) void runEmbeddedStack();
