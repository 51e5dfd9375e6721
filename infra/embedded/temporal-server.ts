/** Embedded Temporal: `temporal server start-dev` on a SQLite file in the data folder. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { PRIVATE_FOLDER_MODE } from './data-folder';
import { spawnService, waitUntilReady } from './processes';

export interface TemporalDevServerOptions {
  cliPath: string;
  /** The parent data folder; the database is `<dataDir>/temporal/temporal.db`. */
  dataDir: string;
  port: number;
  /** Omitted: no Web UI (--headless). */
  uiPort?: number;
  namespace: string;
  /** Days a closed workflow's history is kept (the namespace's retention); omitted: the dev server's default. */
  retentionDays?: number;
  log?: (line: string) => void;
}

export interface TemporalDevServer {
  /** 127.0.0.1:port */
  address: string;
  uiUrl?: string;
  stop(): Promise<void>;
}

/** The custom search attributes the arena's workflows set; the values are Temporal's IndexedValueType. */
export const ARENA_SEARCH_ATTRIBUTES = {
  ArenaAgentId: { cli: 'Int', indexedValueType: 3 },
  ArenaKind: { cli: 'Keyword', indexedValueType: 2 },
  ArenaMode: { cli: 'Keyword', indexedValueType: 2 },
  ArenaOutcome: { cli: 'Keyword', indexedValueType: 2 },
} as const;

const READY_TIMEOUT_MS = 60_000;

/**
 * The history service reads its transfer queue (the tasks that hand activities and workflow tasks
 * to matching) at most `transferProcessorMaxPollRPS` times a second, 20 by default: on a dev
 * server with one shard that held the whole engine to about 20 dispatches a second after a short
 * burst. A coding step (an activity, then a workflow task) took exactly 100 ms, whatever else was
 * idle, and 48 ms with the limit lifted (bench/README.md, tuning log).
 */
export const DEV_SERVER_DYNAMIC_CONFIG = ['history.transferProcessorMaxPollRPS=1000'];

export async function startTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const dbDir = path.join(path.resolve(opts.dataDir), 'temporal');
  await fs.mkdir(dbDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const address = `127.0.0.1:${opts.port}`;
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--namespace',
    opts.namespace,
    '--db-filename',
    path.join(dbDir, 'temporal.db'),
    // WAL with synchronous=OFF survives a crash of the server, just not of the machine: fine for a dev stack.
    '--sqlite-pragma',
    'journal_mode=WAL',
    '--sqlite-pragma',
    'synchronous=OFF',
    ...DEV_SERVER_DYNAMIC_CONFIG.flatMap((setting) => ['--dynamic-config-value', setting]),
    ...Object.entries(ARENA_SEARCH_ATTRIBUTES).flatMap(([name, t]) => ['--search-attribute', `${name}=${t.cli}`]),
    ...(opts.uiPort === undefined ? ['--headless'] : ['--ui-port', String(opts.uiPort)]),
    // The metrics and HTTP API ports are left to the CLI, which picks free ones.
    '--log-level',
    'warn',
  ];

  const server = spawnService({
    name: 'Temporal dev server',
    command: opts.cliPath,
    args,
    cwd: dbDir,
    // The CLI reads TEMPORAL_* as its own settings; ours (TEMPORAL_NAMESPACE, ...) are not meant for it.
    env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('TEMPORAL_'))),
    exitSignal: 'SIGTERM',
    log: opts.log,
  });
  try {
    await waitUntilReady(server, 'The Temporal dev server', READY_TIMEOUT_MS, async () => {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        await ensureSearchAttributes(connection, opts.namespace);
        if (opts.retentionDays !== undefined) await ensureRetention(connection, opts.namespace, opts.retentionDays);
      } finally {
        await connection.close();
      }
    });
  } catch (err) {
    await server.stop('SIGTERM', 10_000);
    throw err;
  }
  return {
    address,
    uiUrl: opts.uiPort === undefined ? undefined : `http://127.0.0.1:${opts.uiPort}`,
    stop: () => server.stop('SIGTERM', 10_000),
  };
}

const DAY_SECONDS = 86_400;

/**
 * The namespace keeps a closed workflow's history (and its visibility record, which delivery search
 * reads) for `days`, then deletes it: without a bound set here, every delivery's history stays in
 * the data folder for as long as the dev server's default says.
 */
async function ensureRetention(connection: Connection, namespace: string, days: number): Promise<void> {
  const { config } = await connection.workflowService.describeNamespace({ namespace });
  if (Number(config?.workflowExecutionRetentionTtl?.seconds ?? 0) === days * DAY_SECONDS) return;
  await connection.workflowService.updateNamespace({
    namespace,
    config: { workflowExecutionRetentionTtl: msToTs(days * DAY_SECONDS * 1000) },
  });
}

/** The namespace's retention as the server holds it, in days. */
export async function namespaceRetentionDays(connection: Connection, namespace: string): Promise<number> {
  const { config } = await connection.workflowService.describeNamespace({ namespace });
  return Number(config?.workflowExecutionRetentionTtl?.seconds ?? 0) / DAY_SECONDS;
}

/**
 * start-dev registers its --search-attribute flags only when it creates the database, so an
 * attribute added to the list later is registered here; throws until all are visible.
 */
async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.entries(ARENA_SEARCH_ATTRIBUTES).filter(
    ([name]) => !(customAttributes && name in customAttributes),
  );
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map(([name, t]) => [name, t.indexedValueType])),
  });
  throw new Error(`search attributes just registered, not yet visible: ${missing.map(([name]) => name).join(', ')}`);
}
