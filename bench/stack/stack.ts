/**
 * The stack under test, brought up from nothing in a temporary folder: embedded PostgreSQL and a
 * Temporal dev server on free ports (the same code as `npm start`), the migrated database, and the
 * worker and the API as separate processes, so their memory and CPU are their own. The API runs
 * from the build (`dist/`), as in production; the worker from the sources, through tsx.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { migrateDatabase } from '../../infra/db/migrate';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../infra/embedded/postgres';
import { findOrInstallTemporalCli } from '../../infra/embedded/temporal-cli';
import { startTemporalDevServer, type TemporalDevServer } from '../../infra/embedded/temporal-server';
import { freePort } from '../../infra/ports';
import { waitFor } from '../lib/clock';
import { findPid } from '../lib/proc';
import { apiNodeArgs } from './api-command';
import { REPO, startChild, type BenchChild } from './child';

export interface BenchStack {
  dir: string;
  databaseUrl: string;
  temporalAddress: string;
  temporal: TemporalClient;
  /** `temporal --version` of the CLI that runs the dev server. */
  temporalCliVersion: string;
  temporalCliPath: string;
  apiUrl: string;
  api: BenchChild;
  worker: BenchChild;
  /** The environment the API and worker run with (the bench's own processes reuse it). */
  env: NodeJS.ProcessEnv;
  /** Processes whose CPU the bench accounts for, by name. */
  pids(): Record<string, number>;
  /** A fresh API process (same port), e.g. so a memory figure starts from a clean heap. */
  restartApi(): Promise<void>;
  /** The worker SIGKILLed, as in a crash (no shutdown), then a fresh one started; resolves once it polls. */
  killAndRestartWorker(): Promise<void>;
  /** PostgreSQL stopped (fast shutdown), for an outage; `startPostgres` brings it back on the same port and data. */
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  /** The Temporal dev server stopped; `startTemporal` brings it back on the same port and database file. */
  stopTemporal(): Promise<void>;
  startTemporal(): Promise<void>;
  /** Path of a workflow bundle built from `workflowsPath`. */
  bundle(name: string, workflowsPath: string): Promise<string>;
  logFile(name: string): string;
  stop(): Promise<void>;
}

export interface StackOptions {
  log: (line: string) => void;
  /** Extra node flags for the API and worker processes (profiling). */
  nodeArgs?: string[];
  /** Extra node flags for the API process alone (trying V8 settings). */
  apiNodeArgs?: string[];
  keepDir?: boolean;
  /** The API in the worker's process on its connection, as `npm start` runs them (eager workflow start). */
  embedded?: boolean;
  /** Run `npm run build` before starting the API (default); false when the caller has just built. */
  build?: boolean;
  /** Settings over the bench's own (a schedule brought back into the run). */
  env?: Record<string, string>;
}

/**
 * Everything the bench needs lifted so that only the service's own behaviour limits it: the
 * abuse limits (their names may not exist in every version; unknown variables are ignored), and
 * schedules pushed out of the run.
 */
export const BENCH_SETTINGS: Record<string, string> = {
  ARENA_REGISTER_RATE_LIMIT: '1000',
  ARENA_SANDBOX_RATE_LIMIT: '100000000',
  ARENA_BENCHMARK_RATE_LIMIT: '100000000',
  ARENA_WORK_POLL_RATE_LIMIT: '100000000',
  ARENA_VOTE_RATE_LIMIT: '100000000',
  ARENA_BATTLE_RATE_LIMIT: '100000000',
  // Creating push agents and changing webhooks spend pings; the fleet creates hundreds at once.
  ARENA_PING_RATE_LIMIT: '100000000',
  ARENA_GYM_RESTART_RATE_LIMIT: '100000000',
  ARENA_LOGIN_RATE_LIMIT: '100000000',
  // The pull figure holds 10,000 long-polls in one API process; the default cap is exactly that.
  ARENA_MAX_OPEN_POLLS: '50000',
  ARENA_MAX_AGENTS_PER_ACCOUNT: '1000000',
  // The sandbox figure runs its 20 sessions from one account, as fast as the workers take them.
  ARENA_CODING_SESSIONS_PER_ACCOUNT: '10000',
  ARENA_CODING_STEPS_PER_ACCOUNT: '10000',
  ARENA_DISPATCH_INTERVAL: '86400',
  ARENA_LEADERBOARD_INTERVAL: '86400',
  // Agents that never answer (the deadline figure) must not be made inactive half way.
  ARENA_PUSH_FAILURE_SPAN: '86400',
  ARENA_ALLOW_PRIVATE_WEBHOOKS: 'true',
  ARENA_WORKER_METRICS_PORT: '0',
  LOG_LEVEL: 'info',
};

const quietLogger = new DefaultLogger('WARN');

/** Where the stack keeps its files, and what stops it, newest first. */
interface StackRoom {
  dir: string;
  log: (line: string) => void;
  logFile(name: string): string;
  /** Appends a line to `<name>.log`, never throwing. */
  fileLog(name: string): (line: string) => void;
  onStop(stop: () => Promise<void>): void;
}

/** Workflow bundles built once per name into the stack's folder; resolves with the file's path. */
function workflowBundles(dir: string): (name: string, workflowsPath: string) => Promise<string> {
  const bundles = new Map<string, Promise<string>>();
  return (name, workflowsPath) => {
    let made = bundles.get(name);
    if (!made) {
      made = bundleWorkflowCode({ workflowsPath, logger: quietLogger }).then(async ({ code }) => {
        const file = path.join(dir, `${name}-bundle.js`);
        await fs.writeFile(file, code);
        return file;
      });
      bundles.set(name, made);
    }
    return made;
  };
}

/** PostgreSQL and the Temporal dev server, each stoppable and startable again on its port and data (a fault). */
interface StackServers {
  databaseUrl: string;
  temporalAddress: string;
  temporalCliPath: string;
  pids(): Record<string, number>;
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  stopTemporal(): Promise<void>;
  startTemporal(): Promise<void>;
}

/** Starts PostgreSQL and then the Temporal dev server on free ports, in the stack's folder. */
async function startServers(room: StackRoom): Promise<StackServers> {
  const [pgPort, temporalPort] = [await freePort(), await freePort()];
  const cli = findOrInstallTemporalCli({
    toolDir: path.join(REPO, '.arena', 'tools'),
    explicitPath: process.env.TEMPORAL_CLI_PATH || undefined,
    log: room.log,
  });
  // The handles change when a fault stops and starts them; teardown stops the current ones.
  let pgServer: EmbeddedPostgres | undefined;
  let temporalDev: TemporalDevServer | undefined;
  const startPg = () => startEmbeddedPostgres({ dataDir: room.dir, port: pgPort, log: room.fileLog('postgres') });
  const startTemporal = (cliPath: string) =>
    startTemporalDevServer({
      cliPath,
      dataDir: room.dir,
      port: temporalPort,
      namespace: 'default',
      log: room.fileLog('temporal'),
    });
  const postgres = startPg().then((server) => {
    pgServer = server;
    room.onStop(() => pgServer?.stop() ?? Promise.resolve());
    return server;
  });
  const [pg, temporalServer] = await Promise.all([
    postgres,
    // Temporal binds ports of its own choosing as it starts: once PostgreSQL holds its port, none can be that one.
    Promise.all([cli, postgres.catch(() => undefined)]).then(([cliPath]) =>
      startTemporal(cliPath).then((server) => {
        temporalDev = server;
        room.onStop(() => temporalDev?.stop() ?? Promise.resolve());
        return server;
      }),
    ),
  ]);
  const temporalCliPath = await cli;
  const clusterDir = path.join(room.dir, 'postgres');
  const temporalDb = path.join(room.dir, 'temporal', 'temporal.db');
  return {
    databaseUrl: pg.url,
    temporalAddress: temporalServer.address,
    temporalCliPath,
    pids() {
      const out: Record<string, number> = {};
      const pgPid = findPid(clusterDir);
      const temporalPid = findPid(temporalDb);
      if (pgPid) out.postgres = pgPid;
      if (temporalPid) out.temporal = temporalPid;
      return out;
    },
    async stopPostgres() {
      await pgServer?.stop();
      pgServer = undefined;
    },
    async startPostgres() {
      pgServer ??= await startPg();
    },
    async stopTemporal() {
      await temporalDev?.stop();
      temporalDev = undefined;
    },
    async startTemporal() {
      temporalDev ??= await startTemporal(temporalCliPath);
    },
  };
}

/** The arena's own processes: the worker, and the API apart from it unless embedded. */
interface ArenaProcesses {
  readonly api: BenchChild;
  readonly worker: BenchChild;
  pids(): Record<string, number>;
  restartApi(): Promise<void>;
  killAndRestartWorker(): Promise<void>;
}

/** Starts the worker (from the sources) and the API (from the build), resolving once both are ready. */
async function startArenaProcesses(
  room: StackRoom,
  { env, apiUrl, opts }: { env: NodeJS.ProcessEnv; apiUrl: string; opts: StackOptions },
): Promise<ArenaProcesses> {
  const startWorkerChild = () =>
    startChild({
      name: 'worker',
      script: 'bench/stack/worker-entry.ts',
      env,
      logFile: room.logFile('worker'),
      ipc: true,
      nodeArgs: opts.nodeArgs,
    });
  let worker = startWorkerChild();
  room.onStop(() => worker.stop(30_000));
  const startApiChild = async (): Promise<BenchChild> => {
    // The built API with the flags `npm run api` gives Node, as production runs it (tsx would add its compiler's memory).
    const [script, ...npmFlags] = apiNodeArgs().reverse();
    const child = startChild({
      name: 'api',
      script: script!,
      compiled: true,
      nodeArgs: [...(opts.nodeArgs ?? []), ...npmFlags.reverse(), ...(opts.apiNodeArgs ?? [])],
      env,
      logFile: room.logFile('api'),
    });
    await waitFor(
      async () => {
        if (child.process.exitCode !== null)
          throw new Error(`the API exited during start-up; see ${room.logFile('api')}`);
        const res = await fetch(`${apiUrl}/health`).catch(() => undefined);
        return res?.status === 200;
      },
      'the API to answer /health',
      60_000,
      100,
    );
    return child;
  };
  const workerReady = () =>
    worker.message<{ ready: true }>(
      (m): m is { ready: true } => typeof m === 'object' && m !== null && 'ready' in m,
      120_000,
    );
  // Embedded, the worker's process is the API's: it is ready once the worker says so.
  let api = opts.embedded ? (await workerReady(), worker) : await startApiChild();
  if (!opts.embedded) {
    room.onStop(() => api.stop(30_000));
    await workerReady();
  }
  return {
    get api() {
      return api;
    },
    get worker() {
      return worker;
    },
    pids(): Record<string, number> {
      // Embedded, one process is both: its CPU is counted once, as the worker's.
      return opts.embedded ? { worker: worker.pid } : { api: api.pid, worker: worker.pid };
    },
    async restartApi() {
      if (opts.embedded)
        throw new Error('the API shares the worker process in --embedded runs; it cannot restart alone');
      await api.stop(30_000);
      api = await startApiChild();
    },
    async killAndRestartWorker() {
      if (opts.embedded) throw new Error('the API shares the worker process in --embedded runs');
      worker.process.kill('SIGKILL');
      await worker.exited;
      worker = startWorkerChild();
      await workerReady();
    },
  };
}

export async function startStack(opts: StackOptions): Promise<BenchStack> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-bench-'));
  const stops: Array<() => Promise<void>> = [];
  const logFile = (name: string) => path.join(dir, `${name}.log`);
  const room: StackRoom = {
    dir,
    log: opts.log,
    logFile,
    fileLog: (name) => (line) => void fs.appendFile(logFile(name), `${line}\n`).catch(() => undefined),
    onStop: (stop) => void stops.push(stop),
  };
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
    if (!opts.keepDir) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };

  try {
    const bundle = workflowBundles(dir);
    opts.log(`data folder ${dir}`);
    opts.log('starting PostgreSQL and the Temporal dev server, bundling the workflows');
    const arenaBundle = bundle('arena', path.join(REPO, 'workflows'));
    const [servers] = await Promise.all([startServers(room), arenaBundle]);
    const temporalCliVersion = execFileSync(servers.temporalCliPath, ['--version'], { encoding: 'utf8' }).trim();
    if (!opts.embedded && opts.build !== false) {
      opts.log('building the API (npm run build)');
      execFileSync('npm', ['run', 'build'], { cwd: REPO, stdio: 'ignore' });
    }
    opts.log('migrating the database');
    await migrateDatabase(servers.databaseUrl);

    const connection = await Connection.connect({ address: servers.temporalAddress });
    stops.push(() => connection.close());
    const temporal = new TemporalClient({ connection, namespace: 'default' });

    const apiPort = await freePort();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...BENCH_SETTINGS,
      ...opts.env,
      DATABASE_URL: servers.databaseUrl,
      TEMPORAL_ADDRESS: servers.temporalAddress,
      ARENA_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      ARENA_PUBLIC_URL: apiUrl,
      ARENA_DATA_DIR: dir,
      BENCH_WORKFLOW_BUNDLE: await arenaBundle,
      ...(opts.embedded ? { BENCH_EMBEDDED_API: '1' } : {}),
    };
    opts.log('starting the worker and the API');
    const arena = await startArenaProcesses(room, { env, apiUrl, opts });
    return {
      dir,
      databaseUrl: servers.databaseUrl,
      temporalAddress: servers.temporalAddress,
      temporal,
      temporalCliVersion,
      temporalCliPath: servers.temporalCliPath,
      apiUrl,
      get api() {
        return arena.api;
      },
      get worker() {
        return arena.worker;
      },
      env,
      pids: () => ({ ...arena.pids(), ...servers.pids() }),
      restartApi: () => arena.restartApi(),
      killAndRestartWorker: () => arena.killAndRestartWorker(),
      stopPostgres: () => servers.stopPostgres(),
      startPostgres: () => servers.startPostgres(),
      stopTemporal: () => servers.stopTemporal(),
      startTemporal: () => servers.startTemporal(),
      bundle,
      logFile,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
