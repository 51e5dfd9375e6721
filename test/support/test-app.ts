/** The real app on a real database and Temporal server, configured like production, for `inject` tests. */
import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client, type Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app';
import type { OpenidClientLoader } from '../../api/web/auth/oidc-client';
import type { AppDeps } from '../../api/deps';
import { loadConfig, type RuntimeConfig } from '../../infra/config';
import { ormConfig } from '../../infra/db/orm.config';
import { WebhookClient } from '../../infra/webhook/client';
import { createLogger } from '../../infra/logging';
import { WorkNotifier } from '../../api/work-notifier';
import type { HostResolver } from '../../infra/webhook/guarded-lookup';
import { startWorker, type RunningWorker } from '../../worker/main';
import { createTestDatabase } from './test-db';
import { trustJudges as trustJudgesById } from '../../infra/db/repositories/judge-standing.repository';
import { quietWorkerLogs } from './quiet-runtime';
import { pastTheGym } from './past-the-gym';
import { connectClient } from '../../infra/temporal/client-connection';

/** The workflow code, bundled once by the global setup for every test file. */
export function workflowBundlePath(): string {
  const file = process.env.TEST_WORKFLOW_BUNDLE;
  if (!file)
    throw new Error(
      'TEST_WORKFLOW_BUNDLE is not set: run the tests through jest (its global setup bundles the workflows)',
    );
  return file;
}

export interface TestApp {
  app: FastifyInstance;
  orm: MikroORM;
  config: RuntimeConfig;
  temporal: Connection;
  /** Starts a worker on this app's task queue (each test file has its own); closed with the app. No schedules unless asked. */
  startWorker(options?: { schedules?: boolean }): Promise<RunningWorker>;
  close(): Promise<void>;
}

export async function startTestApp(
  env: Record<string, string> = {},
  options: {
    pingTimeoutMs?: number;
    loadOpenidClient?: OpenidClientLoader;
    logStream?: AppDeps['logStream'];
    resolveHost?: HostResolver;
    /** A database the caller runs and has prepared (prepareDatabase); by default a fresh one on the run's server. */
    databaseUrl?: string;
    /** The folder served under /downloads/; by default the build's. */
    downloadsDir?: string;
    /** The app's clock (`AppDeps.clock`); the system's by default. */
    clock?: () => Date;
    /** How often a running MCP tool call sends progress (`AppDeps.mcpProgressIntervalMs`). */
    mcpProgressIntervalMs?: number;
    /** How often an MCP answer's stream carries a keep-alive comment (`AppDeps.mcpKeepAliveMs`). */
    mcpKeepAliveMs?: number;
    /**
     * Whether agents start past the gym (test/support/past-the-gym.ts): true by default, for files
     * that do not test the gym; false runs every gym for real; a function says, at each gym's start,
     * whether this one is passed (true) or run for real.
     */
    pastTheGym?: boolean | (() => boolean);
  } = {},
): Promise<TestApp> {
  const db = options.databaseUrl
    ? { url: options.databaseUrl, idBase: undefined, drop: async () => undefined }
    : await createTestDatabase();
  const temporalAddress = process.env.TEST_TEMPORAL_ADDRESS!;
  const config = {
    ...loadConfig({
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: temporalAddress,
      ARENA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      ARENA_PUBLIC_URL: 'http://arena.test',
      ARENA_ALLOW_PRIVATE_WEBHOOKS: 'true',
      LOG_LEVEL: 'silent',
      TEMPORAL_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
      ...(db.idBase === undefined ? {} : sandboxUidRange(db.idBase)),
      ...env,
    }),
  } as RuntimeConfig;
  const orm = await MikroORM.init(ormConfig(db.url));
  const { connection: temporal, close: closeTemporal } = await connectClient({ address: temporalAddress });
  const webhooks = new WebhookClient({ allowPrivate: config.allowPrivateWebhooks, resolveHost: options.resolveHost });
  const notifier = new WorkNotifier(db.url, createLogger(config.logLevel, { stream: options.logStream }));
  await notifier.start();
  const app = await buildApp({
    config,
    orm,
    temporal: new Client({
      connection: temporal,
      namespace: config.temporalNamespace,
      interceptors:
        options.pastTheGym === false
          ? undefined
          : {
              workflow: [
                pastTheGym(() => orm, typeof options.pastTheGym === 'function' ? options.pastTheGym : undefined),
              ],
            },
    }),
    notifier,
    webhooks,
    pingTimeoutMs: options.pingTimeoutMs,
    loadOpenidClient: options.loadOpenidClient,
    logStream: options.logStream,
    downloadsDir: options.downloadsDir,
    clock: options.clock,
    mcpProgressIntervalMs: options.mcpProgressIntervalMs,
    mcpKeepAliveMs: options.mcpKeepAliveMs,
  });
  await app.ready();
  const workers: RunningWorker[] = [];
  return {
    app,
    orm,
    config,
    temporal,
    async startWorker({ schedules = false } = {}) {
      quietWorkerLogs();
      const worker = await startWorker(config, {
        workflowBundle: { codePath: workflowBundlePath() },
        schedules,
        resolveHost: options.resolveHost,
      });
      workers.push(worker);
      return worker;
    },
    async close() {
      await Promise.allSettled(workers.map((w) => w.close()));
      await app.close();
      await Promise.allSettled([notifier.close(), orm.close(), closeTemporal(), webhooks.close()]);
      await db.drop();
    },
  };
}

export interface Registered {
  apiKey: string;
  userId: number;
  username: string;
  auth: { authorization: string };
  /** The address it registered from: pass it as `remoteAddress` to act from there (per-address rules count it). */
  ip: string;
}

let registrations = 0;

/** Registers an account; each call comes from its own address unless one is given, so rate limits stay out of the way. */
export async function register(
  app: FastifyInstance,
  ip = `10.200.${Math.floor(++registrations / 250)}.${registrations % 250}`,
): Promise<Registered> {
  const res = await app.inject({ method: 'POST', url: '/api/register', remoteAddress: ip });
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  const body = res.json();
  return {
    apiKey: body.api_key,
    userId: body.user_id,
    username: body.username,
    auth: { authorization: `Bearer ${body.api_key}` },
    ip,
  };
}

/**
 * Vouches for judges as an operator does (`arena judges trust`): their votes count on the boards
 * from the next refresh and move Elo in full, and the per-address rules pass them by.
 */
export async function trustJudges(t: Pick<TestApp, 'orm'>, ...judges: Registered[]): Promise<void> {
  await trustJudgesById(
    t.orm.em.fork(),
    judges.map((j) => j.userId),
  );
}

/** A new account that judges as a trusted judge (see trustJudges). */
export async function registerJudge(t: Pick<TestApp, 'app' | 'orm'>, ip?: string): Promise<Registered> {
  const judge = await register(t.app, ip);
  await trustJudges(t, judge);
  return judge;
}

/**
 * A sandbox uid range of the test file's own, from its database's id block: uids are leased per
 * database, so two files on the default range leased the same uid, and one file's session end killed
 * the other's commands. Above the default range and the uids the sandbox unit tests use.
 */
function sandboxUidRange(idBase: number): Record<string, string> {
  return { ARENA_SANDBOX_UID_BASE: String(1_000_000 + (idBase / 1_000_000) * 1_000), ARENA_SANDBOX_UID_COUNT: '1000' };
}

/** What a separate API or worker process needs to share this test app's database, Temporal server, task queue and key. */
export function sharedProcessEnv(t: TestApp): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: t.config.databaseUrl,
    TEMPORAL_ADDRESS: t.config.temporalAddress,
    TEMPORAL_NAMESPACE: t.config.temporalNamespace,
    TEMPORAL_TASK_QUEUE: t.config.taskQueue,
    ARENA_ENCRYPTION_KEY: t.config.encryptionKey.toString('hex'),
    ARENA_ALLOW_PRIVATE_WEBHOOKS: 'true',
    ARENA_SANDBOX_UID_BASE: String(t.config.sandbox.uidBase),
    ARENA_SANDBOX_UID_COUNT: String(t.config.sandbox.uidCount),
    LOG_LEVEL: 'warn',
  };
}
