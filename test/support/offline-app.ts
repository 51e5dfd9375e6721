/**
 * The real app with nothing behind it, for the unit project: a database it never connects to, a
 * Temporal client that never dials, and no long-poll wake-ups. What needs no stored state (the
 * OpenAPI document, discovery documents, the docs, validation and routing refusals) is tested on
 * it without PostgreSQL or Temporal; anything that reaches either answers 503, as it would with
 * them down.
 */
import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app';
import { loadConfig } from '../../infra/config';
import { ormConfig } from '../../infra/db/orm.config';
import { WebhookClient } from '../../infra/webhook/client';

/** Nothing listens here: port 1 on loopback refuses at once. */
const NOWHERE = '127.0.0.1:1';

export interface OfflineApp {
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function buildOfflineApp(
  env: Record<string, string> = {},
  options: { downloadsDir?: string } = {},
): Promise<OfflineApp> {
  const orm = await MikroORM.init(
    ormConfig(`postgres://nobody:x@${NOWHERE}/none`, {
      connect: false,
      pool: { min: 0, max: 1, acquireTimeoutMillis: 2000 },
    }),
  );
  const connection = Connection.lazy({ address: NOWHERE, connectTimeout: 1000 });
  const webhooks = new WebhookClient({ allowPrivate: true });
  const config = {
    ...loadConfig({
      DATABASE_URL: `postgres://x@${NOWHERE}/x`,
      TEMPORAL_ADDRESS: NOWHERE,
      ARENA_PUBLIC_URL: 'http://arena.test',
      LOG_LEVEL: 'silent',
      ...env,
    }),
    encryptionKey: randomBytes(32),
  };
  const app = await buildApp({
    config,
    orm,
    temporal: new Client({ connection, namespace: config.temporalNamespace }),
    notifier: { subscribe: () => undefined, unsubscribe: () => undefined },
    webhooks,
    workflowCallTimeoutMs: 1000,
    downloadsDir: options.downloadsDir,
  });
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      await Promise.allSettled([orm.close(), connection.close(), webhooks.close()]);
    },
  };
}
