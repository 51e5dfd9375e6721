/** The service's settings as the rest of the code reads them; `config.ts` reads them from the environment. */
import type { SandboxSettings } from './sandbox/settings';
import type { TrustProxy } from './trust-proxy';

/** Abuse limits: requests per minute per account (or per agent), and how many agents an account may run. */
export interface AbuseLimits {
  votesPerMinute: number;
  sandboxPerMinute: number;
  /** Benchmark runs an account may start per hour: each is a coding session per active task. */
  benchmarksPerHour: number;
  battlesPerMinute: number;
  /** Authenticated work/next calls per agent; a long-polling runner makes a few a minute. */
  workPollsPerMinute: number;
  /** Agents an account may have that are not deactivated. */
  agentsPerAccount: number;
  /** Webhook pings an account causes (push agents made, retests, new webhook URLs): each is a request of up to 15 s. */
  pingsPerMinute: number;
  /** Gym restarts per account: each starts a gym of its own. */
  gymRestartsPerHour: number;
  /** Long-polls one agent may hold open in an API process; a new one answers the oldest. */
  pollsPerAgent: number;
  /** Long-polls an API process holds open at most; past that, 503. */
  maxOpenPolls: number;
  /** Connections the API's server accepts at once; past that, new ones are closed. */
  maxConnections: number;
}

/** The main arena's rules an operator can tune. */
export interface ArenaSettings {
  dispatchIntervalSeconds: number;
  /** Agents one transaction of a dispatch step serves; a step takes batches until every due agent is served. */
  dispatchBatch: number;
  /** Most agents one dispatch step serves; the rest lead the next step (longest waiting first). */
  dispatchStepMax: number;
  /** Deliveries one run of a step starts before it continues as new, so its history stays short. */
  dispatchChildrenPerRun: number;
  minGapSeconds: number;
  mainDeadlineSeconds: number;
  /** False lets agents into the arena without completing the gym (private or development arenas). */
  requireGym: boolean;
  dailyVotes: number;
  /** Earlier answers to its prompt a new pool answer is paired with, at most. */
  pairsPerAnswer: number;
  /** Judges a pair is handed to, at most; an answer leaves judging once each of its pairs has this many votes… */
  votesPerPair: number;
  /** …or this many days after it was recorded, whichever comes first… */
  judgingDays: number;
  /** …or this many minutes after one of its pairs was first handed to a judge (so votes reach the board within minutes). */
  judgingWindowMinutes: number;
  /** A judge's votes count on the fitted boards once the account is this many days old… */
  judgeEstablishDays: number;
  /** …and this many of its votes could be compared with established judges' votes on the same pairs (agreeing at least half the time). */
  judgeEstablishVotes: number;
  /** Votes per client address (an IPv6 /64) per UTC day, across all its accounts. */
  addressDailyVotes: number;
  leaderboardIntervalSeconds: number;
  /** Votes an agent needs for a rank on the leaderboard; with fewer it is listed as provisional. */
  minVotes: number;
  /** Worker threads a leaderboard refresh fits its boards on (at most one per core). */
  leaderboardThreads: number;
  /** A push agent becomes inactive after this many failed deliveries in a row… */
  pushFailureLimit: number;
  /** …spanning at least this many seconds from the first to the last. */
  pushFailureSpanSeconds: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  pgPort: number;
  temporalPort: number;
  temporalUiPort: number;
  /** Unset means: the embedded PostgreSQL in the data folder. */
  databaseUrl?: string;
  /** Unset means: the embedded Temporal dev server. */
  temporalAddress?: string;
  temporalNamespace: string;
  taskQueue: string;
  temporalCliPath?: string;
  /** A workflow bundle made ahead (worker/workflow-bundle.ts); unset, the build's, or bundled at the worker's start. */
  workflowBundle?: string;
  /**
   * ARENA_STICKY_QUEUE_SECONDS: how long a workflow's next task waits on the queue of the worker that
   * ran its last one (which keeps the workflow cached) before any worker may take it: after a
   * worker dies, the pause of its workflows.
   */
  stickyQueueSeconds: number;
  /** Temporal Cloud (or any server that wants one): sent as a bearer key, over TLS. */
  temporalApiKey?: string;
  /** TLS to the Temporal frontend; on by default with an API key. */
  temporalTls: boolean;
  publicUrl: string;
  /** Whether ARENA_PUBLIC_URL was given: unset, absolute links follow the address a request reached (api/request-base.ts). */
  publicUrlSet: boolean;
  allowPrivateWebhooks: boolean;
  /** 32 bytes for AES-256-GCM; generated into the data folder on the embedded stack. */
  encryptionKey?: Buffer;
  registerRateLimit: number;
  /** Who may write X-Forwarded-For: the client address every per-address limit counts depends on it. */
  trustProxy: TrustProxy;
  /** Pause between gym cycles while a gym prompt still has no good answer. */
  gymRetrySeconds: number;
  arena: ArenaSettings;
  logLevel: string;
  /** `json` lines or `pretty` human lines on standard output; unset: pretty on a terminal, JSON otherwise. */
  logFormat?: 'json' | 'pretty';
  /** How long a website sign-in lasts (the session cookie's Max-Age and the row's expiry). */
  sessionDays: number;
  /** Website log-in attempts per client address per 15 minutes. */
  loginRateLimit: number;
  /** Sign-in through an OpenID Connect provider; unset when not configured. */
  oidc?: OidcSettings;
  /** Accounts (usernames, lowercase) allowed on /api/admin; nobody else can take these names. */
  adminUsernames: string[];
  /** The Temporal Web UI, for links to deliveries; unset for an external Temporal unless given. */
  temporalUiUrl?: string;
  /** Port of the worker process's own /metrics (`npm run worker`); `npm start` serves them on the API's. */
  workerMetricsPort: number;
  /** When set, /metrics wants `Authorization: Bearer <token>`. */
  metricsToken?: string;
  limits: AbuseLimits;
  retention: RetentionLimits;
  sandbox: SandboxSettings;
  /** The coding-task catalogue: one folder per task, `<language>/<slug>/`. */
  sandboxTasksDir: string;
}

/** What grows with use and is not the product, and how much of it is kept (docs/guides/operations.md). */
export interface RetentionLimits {
  /** Days a settled pull work item is kept after its delivery ended (the delivery itself stays). */
  workItemDays: number;
  /** Days the embedded Temporal keeps a closed workflow's history (the namespace's retention). */
  temporalDays: number;
  /** Size at which each of the embedded servers' log files in the data folder is rotated, in bytes. */
  logFileBytes: number;
  /** Rotated log files kept beside each current one. */
  logFilesKept: number;
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** A configuration whose database, Temporal server and key are all known. */
export interface RuntimeConfig extends Config {
  databaseUrl: string;
  temporalAddress: string;
  encryptionKey: Buffer;
}
