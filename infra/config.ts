/** Service configuration: read once from the environment, validated with zod. */
import path from 'node:path';
import { z } from 'zod';
import { checkSandboxEnv, sandboxEnv, sandboxSettings, sandboxTasksDir } from './sandbox/settings';
import { trustProxy } from './trust-proxy';
import type { Config, RuntimeConfig } from './config-types';

export type { CodingCapacity, SandboxLimits, SandboxSettings } from './sandbox/settings';
export type { TrustProxy } from './trust-proxy';
export type { AbuseLimits, ArenaSettings, Config, OidcSettings, RuntimeConfig } from './config-types';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().min(1);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a listen address (HOST) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}
const OIDC_VARIABLES = ['ARENA_OIDC_ISSUER', 'ARENA_OIDC_CLIENT_ID', 'ARENA_OIDC_CLIENT_SECRET'] as const;

const envSchema = z
  .object({
    PORT: port.default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    ARENA_DATA_DIR: z.string().min(1).default('.arena'),
    ARENA_PG_PORT: port.default(5433),
    ARENA_TEMPORAL_PORT: port.default(7233),
    ARENA_TEMPORAL_UI_PORT: port.default(8233),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    TEMPORAL_ADDRESS: z
      .string()
      .regex(/^[^\s:]+:\d+$/, 'expected host:port')
      .optional(),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z
      .string()
      .min(1)
      .regex(/^[^'"\\]+$/, 'must not contain quotes or backslashes')
      .default('arena'),
    TEMPORAL_CLI_PATH: z.string().min(1).optional(),
    ARENA_WORKFLOW_BUNDLE: z.string().min(1).optional(),
    ARENA_STICKY_QUEUE_SECONDS: positiveInt.max(300, 'must be at most 300').default(10),
    TEMPORAL_API_KEY: z.string().min(1).optional(),
    TEMPORAL_TLS: bool.optional(),
    ARENA_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    ARENA_ALLOW_PRIVATE_WEBHOOKS: bool.optional(),
    ARENA_ENCRYPTION_KEY: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex characters (32 bytes)')
      .optional(),
    ARENA_REGISTER_RATE_LIMIT: positiveInt.default(20),
    ARENA_TRUST_PROXY: trustProxy.default(false),
    ARENA_GYM_RETRY_SECONDS: positiveInt.default(60),
    ARENA_DISPATCH_INTERVAL: positiveInt.default(10),
    ARENA_DISPATCH_BATCH: positiveInt.max(5000, 'must be at most 5000').default(1000),
    ARENA_DISPATCH_STEP_MAX: positiveInt.default(20000),
    ARENA_DISPATCH_CHILDREN_PER_RUN: positiveInt.max(5000, 'must be at most 5000').default(1000),
    ARENA_MIN_GAP_SECONDS: z.coerce.number().int('expected a whole number').min(0, 'must not be negative').default(30),
    ARENA_MAIN_DEADLINE_SECONDS: positiveInt.max(3600, 'must be at most 3600').default(300),
    ARENA_REQUIRE_GYM: bool.default(true),
    ARENA_DAILY_VOTES: positiveInt.default(200),
    ARENA_PAIRS_PER_ANSWER: positiveInt.max(100, 'must be at most 100').default(4),
    ARENA_VOTES_PER_PAIR: positiveInt.max(100, 'must be at most 100').default(3),
    ARENA_JUDGING_DAYS: positiveInt.max(365, 'must be at most 365').default(7),
    ARENA_JUDGING_WINDOW_MINUTES: positiveInt
      .min(3, 'must be at least 3')
      .max(10_080, 'must be at most 10080')
      .default(15),
    ARENA_JUDGE_ESTABLISH_DAYS: z.coerce
      .number()
      .int('expected a whole number of days')
      .min(0, 'must not be negative')
      .max(365, 'must be at most 365')
      .default(7),
    ARENA_JUDGE_ESTABLISH_VOTES: positiveInt.max(10_000, 'must be at most 10000').default(20),
    ARENA_ADDRESS_DAILY_VOTES: positiveInt.default(300),
    ARENA_LEADERBOARD_INTERVAL: positiveInt.default(60),
    ARENA_MIN_VOTES: positiveInt.default(10),
    ARENA_LEADERBOARD_THREADS: positiveInt.max(64, 'must be at most 64').default(2),
    ARENA_WORK_ITEM_RETENTION_DAYS: positiveInt.max(36_500, 'must be at most 36500').default(7),
    ARENA_TEMPORAL_RETENTION_DAYS: positiveInt.max(365, 'must be at most 365').default(7),
    ARENA_LOG_FILE_MB: positiveInt.max(10_000, 'must be at most 10000').default(10),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
    ARENA_SESSION_DAYS: positiveInt.max(365, 'must be at most 365').default(30),
    ARENA_LOGIN_RATE_LIMIT: positiveInt.default(10),
    ARENA_OIDC_ISSUER: z
      .url({ protocol: /^https?$/ })
      .refine(
        (v) => v.startsWith('https:') || LOOPBACK_HOSTS.has(new URL(v).hostname),
        'must be https (plain http only for localhost)',
      )
      .optional(),
    ARENA_OIDC_CLIENT_ID: z.string().min(1).optional(),
    ARENA_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    ARENA_ADMIN_USERNAMES: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((name) => name.trim().toLowerCase())
          .filter(Boolean),
      )
      .default([]),
    TEMPORAL_UI_URL: z.url({ protocol: /^https?$/ }).optional(),
    ARENA_PUSH_FAILURE_LIMIT: positiveInt.default(10),
    ARENA_PUSH_FAILURE_SPAN: z.coerce
      .number()
      .int('expected a whole number of seconds')
      .min(0, 'must not be negative')
      .default(600),
    ARENA_WORKER_METRICS_PORT: port.default(9464),
    ARENA_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    ARENA_VOTE_RATE_LIMIT: positiveInt.default(30),
    ARENA_SANDBOX_RATE_LIMIT: positiveInt.default(30),
    ARENA_BENCHMARK_RATE_LIMIT: positiveInt.default(6),
    ARENA_BATTLE_RATE_LIMIT: positiveInt.default(10),
    ARENA_WORK_POLL_RATE_LIMIT: positiveInt.default(120),
    ARENA_MAX_AGENTS_PER_ACCOUNT: positiveInt.default(50),
    ARENA_PING_RATE_LIMIT: positiveInt.default(10),
    ARENA_GYM_RESTART_RATE_LIMIT: positiveInt.default(10),
    ARENA_POLLS_PER_AGENT: positiveInt.default(4),
    ARENA_MAX_OPEN_POLLS: positiveInt.default(10_000),
    ARENA_MAX_CONNECTIONS: positiveInt.optional(),
    ...sandboxEnv,
  })
  .superRefine((env, ctx) => {
    checkSandboxEnv(env, ctx);
    // Half an OpenID Connect set-up is a mistake, not a choice: name what is missing.
    const given = OIDC_VARIABLES.filter((name) => env[name] !== undefined);
    if (given.length === 0 || given.length === OIDC_VARIABLES.length) return;
    for (const name of OIDC_VARIABLES.filter((n) => env[n] === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `missing: set ${OIDC_VARIABLES.join(', ')} together to enable sign-in with an identity provider, or none of them`,
      });
    }
  });

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty variables count as unset, as shells and .env files often leave them so.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const embedded = !e.DATABASE_URL && !e.TEMPORAL_ADDRESS;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.ARENA_DATA_DIR),
    pgPort: e.ARENA_PG_PORT,
    temporalPort: e.ARENA_TEMPORAL_PORT,
    temporalUiPort: e.ARENA_TEMPORAL_UI_PORT,
    databaseUrl: e.DATABASE_URL,
    temporalAddress: e.TEMPORAL_ADDRESS,
    temporalNamespace: e.TEMPORAL_NAMESPACE,
    taskQueue: e.TEMPORAL_TASK_QUEUE,
    temporalCliPath: e.TEMPORAL_CLI_PATH,
    workflowBundle: e.ARENA_WORKFLOW_BUNDLE ? path.resolve(e.ARENA_WORKFLOW_BUNDLE) : undefined,
    stickyQueueSeconds: e.ARENA_STICKY_QUEUE_SECONDS,
    temporalApiKey: e.TEMPORAL_API_KEY,
    temporalTls: e.TEMPORAL_TLS ?? e.TEMPORAL_API_KEY !== undefined,
    publicUrl: (e.ARENA_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    // Unset, absolute links follow the address the arena was reached at (api/request-base.ts).
    publicUrlSet: e.ARENA_PUBLIC_URL !== undefined,
    // Only where nobody else can reach the API: any account could otherwise scan this network through pings.
    allowPrivateWebhooks: e.ARENA_ALLOW_PRIVATE_WEBHOOKS ?? (embedded && isLoopbackHost(e.HOST)),
    encryptionKey: e.ARENA_ENCRYPTION_KEY ? Buffer.from(e.ARENA_ENCRYPTION_KEY, 'hex') : undefined,
    registerRateLimit: e.ARENA_REGISTER_RATE_LIMIT,
    trustProxy: e.ARENA_TRUST_PROXY,
    gymRetrySeconds: e.ARENA_GYM_RETRY_SECONDS,
    arena: {
      dispatchIntervalSeconds: e.ARENA_DISPATCH_INTERVAL,
      dispatchBatch: e.ARENA_DISPATCH_BATCH,
      dispatchStepMax: e.ARENA_DISPATCH_STEP_MAX,
      dispatchChildrenPerRun: e.ARENA_DISPATCH_CHILDREN_PER_RUN,
      minGapSeconds: e.ARENA_MIN_GAP_SECONDS,
      mainDeadlineSeconds: e.ARENA_MAIN_DEADLINE_SECONDS,
      requireGym: e.ARENA_REQUIRE_GYM,
      dailyVotes: e.ARENA_DAILY_VOTES,
      pairsPerAnswer: e.ARENA_PAIRS_PER_ANSWER,
      votesPerPair: e.ARENA_VOTES_PER_PAIR,
      judgingDays: e.ARENA_JUDGING_DAYS,
      judgingWindowMinutes: e.ARENA_JUDGING_WINDOW_MINUTES,
      judgeEstablishDays: e.ARENA_JUDGE_ESTABLISH_DAYS,
      judgeEstablishVotes: e.ARENA_JUDGE_ESTABLISH_VOTES,
      addressDailyVotes: e.ARENA_ADDRESS_DAILY_VOTES,
      leaderboardIntervalSeconds: e.ARENA_LEADERBOARD_INTERVAL,
      minVotes: e.ARENA_MIN_VOTES,
      leaderboardThreads: e.ARENA_LEADERBOARD_THREADS,
      pushFailureLimit: e.ARENA_PUSH_FAILURE_LIMIT,
      pushFailureSpanSeconds: e.ARENA_PUSH_FAILURE_SPAN,
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    sessionDays: e.ARENA_SESSION_DAYS,
    loginRateLimit: e.ARENA_LOGIN_RATE_LIMIT,
    oidc:
      e.ARENA_OIDC_ISSUER && e.ARENA_OIDC_CLIENT_ID && e.ARENA_OIDC_CLIENT_SECRET
        ? { issuer: e.ARENA_OIDC_ISSUER, clientId: e.ARENA_OIDC_CLIENT_ID, clientSecret: e.ARENA_OIDC_CLIENT_SECRET }
        : undefined,
    adminUsernames: e.ARENA_ADMIN_USERNAMES,
    temporalUiUrl: (
      e.TEMPORAL_UI_URL ?? (e.TEMPORAL_ADDRESS ? undefined : `http://127.0.0.1:${e.ARENA_TEMPORAL_UI_PORT}`)
    )?.replace(/\/+$/, ''),
    workerMetricsPort: e.ARENA_WORKER_METRICS_PORT,
    metricsToken: e.ARENA_METRICS_TOKEN,
    sandboxTasksDir: sandboxTasksDir(e),
    sandbox: sandboxSettings(e, path.resolve(e.ARENA_DATA_DIR)),
    retention: {
      workItemDays: e.ARENA_WORK_ITEM_RETENTION_DAYS,
      temporalDays: e.ARENA_TEMPORAL_RETENTION_DAYS,
      logFileBytes: e.ARENA_LOG_FILE_MB * 1024 * 1024,
      logFilesKept: 3,
    },
    limits: {
      votesPerMinute: e.ARENA_VOTE_RATE_LIMIT,
      sandboxPerMinute: e.ARENA_SANDBOX_RATE_LIMIT,
      benchmarksPerHour: e.ARENA_BENCHMARK_RATE_LIMIT,
      battlesPerMinute: e.ARENA_BATTLE_RATE_LIMIT,
      workPollsPerMinute: e.ARENA_WORK_POLL_RATE_LIMIT,
      agentsPerAccount: e.ARENA_MAX_AGENTS_PER_ACCOUNT,
      pingsPerMinute: e.ARENA_PING_RATE_LIMIT,
      gymRestartsPerHour: e.ARENA_GYM_RESTART_RATE_LIMIT,
      pollsPerAgent: e.ARENA_POLLS_PER_AGENT,
      maxOpenPolls: e.ARENA_MAX_OPEN_POLLS,
      // Room for ordinary requests besides a full house of long-polls, so polls get their 503 first.
      maxConnections: e.ARENA_MAX_CONNECTIONS ?? e.ARENA_MAX_OPEN_POLLS + 1_000,
    },
  };
}

/** What an operator must hear at every start: settings that expose more than a network-facing server should. */
export function startupWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.allowPrivateWebhooks) {
    warnings.push(
      'ARENA_ALLOW_PRIVATE_WEBHOOKS is true: webhooks may reach private, loopback and link-local addresses, so any account can make this server call its own network and read the outcome; set it to false unless only trusted people can reach the arena',
    );
  }
  if (!config.metricsToken && !isLoopbackHost(config.host)) {
    warnings.push(
      `/metrics is closed: HOST=${config.host} is not loopback and ARENA_METRICS_TOKEN is not set; set the token to scrape metrics`,
    );
  }
  return warnings;
}

/** For the separately deployed processes (api, worker, migrate): everything must be given. */
export function requireRuntime(config: Config, needs: Array<'database' | 'temporal' | 'key'>): RuntimeConfig {
  const missing: string[] = [];
  if (needs.includes('database') && !config.databaseUrl) missing.push('DATABASE_URL');
  if (needs.includes('temporal') && !config.temporalAddress) missing.push('TEMPORAL_ADDRESS');
  if (needs.includes('key') && !config.encryptionKey) missing.push('ARENA_ENCRYPTION_KEY');
  if (missing.length > 0) {
    throw new ConfigError(
      `missing ${missing.join(', ')}: set ${missing.length > 1 ? 'them' : 'it'}, or use \`npm start\` for the embedded stack`,
    );
  }
  return config as RuntimeConfig;
}

/** How every process connects to Temporal: the address, plus TLS and an API key where configured. */
export function temporalConnectionOptions(
  config: Config,
  address = config.temporalAddress,
): { address: string; tls?: boolean; apiKey?: string } {
  if (!address) throw new ConfigError('TEMPORAL_ADDRESS is not set');
  return {
    address,
    ...(config.temporalTls ? { tls: true } : {}),
    ...(config.temporalApiKey ? { apiKey: config.temporalApiKey } : {}),
  };
}
