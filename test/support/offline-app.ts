/**
 * The real app with nothing behind it, for the unit project: a database it never connects to, a
 * Temporal client that never dials, and no long-poll wake-ups. What needs no stored state (the
 * OpenAPI document, discovery documents, the docs, validation and routing refusals) is tested on
 * it without PostgreSQL or Temporal; anything that reaches either answers 503, as it would with
 * them down. One API key, `OFFLINE_AUTH`'s, is an account's (a stand-in for the stored keys), so
 * authenticated requests reach the checks that come before any handler.
 */
import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app';
import { API_KEY_PREFIX, hashToken } from '../../domain/credentials';
import { User } from '../../infra/db/entities/user.entity';
import { loadConfig } from '../../infra/config';
import { ormConfig } from '../../infra/db/orm.config';
import { WebhookClient } from '../../infra/webhook/client';

/** Nothing listens here: port 1 on loopback refuses at once. */
const NOWHERE = '127.0.0.1:1';

const OFFLINE_API_KEY = `${API_KEY_PREFIX}${'k'.repeat(43)}`;
/** The headers of the offline app's one account. */
export const OFFLINE_AUTH = { authorization: `Bearer ${OFFLINE_API_KEY}` };
const offlineAccount = Object.assign(new User(), { id: 1, username: 'offline' });

export interface OfflineApp {
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function buildOfflineApp(
  // A variable given as undefined is left unset (ARENA_PUBLIC_URL: the arena then names the address it is reached at).
  env: Record<string, string | undefined> = {},
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
    accountOfKey: async (_em, keyHash) => (keyHash === hashToken(OFFLINE_API_KEY) ? offlineAccount : null),
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
