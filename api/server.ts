/** The API process (`npm run api`): builds the real dependencies, listens, and closes gracefully. */
import type { Server } from 'node:http';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client, type ConnectionLike } from '@temporalio/client';
import {
  ConfigError,
  loadConfig,
  requireRuntime,
  temporalConnectionOptions,
  type RuntimeConfig,
} from '../infra/config';
import { ormConfig } from '../infra/db/orm.config';
import { createLogger, resolveLogFormat } from '../infra/logging';
import { WebhookClient } from '../infra/webhook/client';
import { connectClient } from '../infra/temporal/client-connection';
import { buildApp } from './app';
import { WorkNotifier } from './work-notifier';
import { arenaHasTrustedJudge } from '../infra/db/repositories/judge-standing.repository';

/** A client that has not sent its request's headers by then is let go (slow-header attacks hold sockets). */
const HEADERS_TIMEOUT_MS = 20_000;

/** Every connection holds a descriptor: past the limit new ones are closed at once, before they can exhaust the process. */
function limitConnections(server: Server, maxConnections: number): void {
  server.maxConnections = maxConnections;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
}

export interface RunningApi {
  url: string;
  /** Whether votes can count at all, as the API started: without a trusted judge, none does. */
  hasTrustedJudge: boolean;
  close(): Promise<void>;
}

/**
 * Starts the API. Given `workerConnection`, the connection of a worker in this process (the embedded
 * stack), it starts workflows on it, eagerly, and leaves closing it to the worker.
 */
export async function startApi(config: RuntimeConfig, workerConnection?: ConnectionLike): Promise<RunningApi> {
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const own = workerConnection ? undefined : await connectClient(temporalConnectionOptions(config));
  const temporal = workerConnection ?? own!.connection;
  const closeTemporal = () => own?.close() ?? Promise.resolve();
  const webhooks = new WebhookClient({ allowPrivate: config.allowPrivateWebhooks });
  const notifier = new WorkNotifier(
    config.databaseUrl,
    createLogger(config.logLevel, { name: 'api', format: resolveLogFormat(config.logFormat) }),
  );
  await notifier.start();
  const app = await buildApp({
    config,
    orm,
    temporal: new Client({ connection: temporal, namespace: config.temporalNamespace }),
    notifier,
    webhooks,
    eagerStart: workerConnection !== undefined,
  });
  limitConnections(app.server, config.limits.maxConnections);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await Promise.allSettled([app.close(), notifier.close(), orm.close(), closeTemporal(), webhooks.close()]);
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    hasTrustedJudge: await arenaHasTrustedJudge(orm.em.fork()),
    async close() {
      // Stop accepting and finish in-flight requests first, then release what they used.
      await app.close();
      await Promise.allSettled([notifier.close(), orm.close(), closeTemporal(), webhooks.close()]);
    },
  };
}

/** `npm run api` / `arena api`: listens, and on SIGINT/SIGTERM stops accepting, answers open long-polls and finishes in-flight requests. */
export async function runApiProcess(): Promise<void> {
  const config = requireRuntime(loadConfig(), ['database', 'temporal', 'key']);
  const api = await startApi(config);
  console.log(`API listening on ${api.url} (public URL ${config.publicUrl})`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    api.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module) {
  runApiProcess().catch((err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  });
}
