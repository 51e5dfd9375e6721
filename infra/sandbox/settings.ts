/**
 * The coding sandbox's settings: its ARENA_SANDBOX_* variables (part of the service's one checked
 * environment, infra/config.ts) and the settings they become.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_SANDBOX_TASKS_DIR } from './task-catalogue';

const positiveInt = z.coerce.number().int().min(1);
/** The highest uid a session may get: 4294967295 means "no uid" to the kernel. */
const LAST_SANDBOX_UID = 4_294_967_294;
const MIB = 2 ** 20;

/** The sandbox's variables, spread into the service's environment schema. */
export const sandboxEnv = {
  ARENA_SANDBOX_TASKS_DIR: z.string().min(1).optional(),
  ARENA_CODING_MAX_STEPS: positiveInt.max(10_000).default(200),
  ARENA_CODING_SESSIONS_PER_ACCOUNT: positiveInt.max(10_000).default(4),
  ARENA_CODING_STEPS_PER_ACCOUNT: positiveInt.max(10_000).default(2),
  ARENA_CODING_STEP_SLOTS: positiveInt.max(1_000).default(16),
  ARENA_CODING_STEP_QUEUE: z.coerce.number().int().min(0).max(10_000).default(16),
  ARENA_CODING_SCORING_SLOTS: positiveInt.max(1_000).default(4),
  ARENA_CODING_STEP_RETENTION_DAYS: positiveInt.max(36_500).default(30),
  ARENA_WORKSPACE_PICKUP_SECONDS: positiveInt.max(300, 'must be at most 300').default(20),
  ARENA_SANDBOX_DIR: z.string().min(1).optional(),
  ARENA_SANDBOX_UID_BASE: positiveInt
    .min(10_000, 'must be at least 10000, clear of the system and login users')
    .default(200_000),
  ARENA_SANDBOX_UID_COUNT: positiveInt.min(3, 'must be at least 3').default(100_000),
  ARENA_SANDBOX_MEMORY_MB: positiveInt
    .min(768, 'must be at least 768 (node reserves that much address space to start)')
    .default(1024),
  ARENA_SANDBOX_PROCESSES: positiveInt.min(8, 'must be at least 8').default(64),
  ARENA_SANDBOX_CPU_SECONDS: positiveInt.default(60),
  ARENA_SANDBOX_OUTPUT_BYTES: positiveInt.default(64 * 1024),
  ARENA_SANDBOX_FILE_SIZE_MB: positiveInt.default(64),
  ARENA_SANDBOX_OPEN_FILES: positiveInt.min(64, 'must be at least 64').default(256),
  ARENA_SANDBOX_TMP_MB: positiveInt.default(64),
  ARENA_SANDBOX_DISK_MB: positiveInt.default(64),
  ARENA_SANDBOX_DISK_FILES: positiveInt.min(64, 'must be at least 64').default(4096),
};

type SandboxEnv = z.infer<z.ZodObject<typeof sandboxEnv>>;

/** The rules across variables: the uid range must fit below the kernel's "no uid", and hold a session's uid beside the judges'. */
export function checkSandboxEnv(env: SandboxEnv, ctx: z.RefinementCtx): void {
  if (env.ARENA_SANDBOX_UID_BASE + env.ARENA_SANDBOX_UID_COUNT - 1 > LAST_SANDBOX_UID) {
    ctx.addIssue({
      code: 'custom',
      path: ['ARENA_SANDBOX_UID_COUNT'],
      message: `the range must end at uid ${LAST_SANDBOX_UID} or below`,
    });
  }
  if (env.ARENA_SANDBOX_UID_COUNT < env.ARENA_CODING_SCORING_SLOTS + 2) {
    ctx.addIssue({
      code: 'custom',
      path: ['ARENA_SANDBOX_UID_COUNT'],
      message: `must be at least ARENA_CODING_SCORING_SLOTS + 2 (${env.ARENA_CODING_SCORING_SLOTS + 2}): a uid for each scoring's judge, one for the isolation check, and one for a session`,
    });
  }
}

/**
 * How the range is shared: sessions lease `uidBase .. uidBase + sessions - 1`; the judges' own block,
 * one uid per scoring slot, follows; the range's last uid is the isolation check's.
 */
export function uidRangeOf(settings: Pick<SandboxSettings, 'uidBase' | 'uidCount' | 'capacity'>): {
  uidBase: number;
  sessions: number;
  judgesBase: number;
  judges: number;
} {
  const judges = settings.capacity.scoringSlots;
  const sessions = settings.uidCount - 1 - judges;
  return { uidBase: settings.uidBase, sessions, judgesBase: settings.uidBase + sessions, judges };
}

/** What one command in a coding sandbox may use; each is a per-process limit except wall time, which the worker keeps. */
export interface SandboxLimits {
  /** Address space of each process. */
  memoryBytes: number;
  /** Processes and threads of the session's uid. */
  processes: number;
  cpuSeconds: number;
  /** Each of stdout and stderr is cut here. */
  outputBytes: number;
  /** Largest file a command may write. */
  fileSizeBytes: number;
  openFiles: number;
  /** Size of the sandbox's own /tmp (memory, gone when the command ends). */
  tmpBytes: number;
}

/** A workspace's disk quota: it is a file system of its own, of this size. */
export interface DiskQuota {
  bytes: number;
  /** Files and folders, the workspace's root among them. */
  files: number;
}

/** How much of the sandbox one account may hold, and how much a worker takes on. */
export interface CodingCapacity {
  /** Coding sessions an account may have live (pending or running) at once, benchmark runs' included. */
  sessionsPerAccount: number;
  /** Steps of an account's sessions that may run or wait at once. */
  stepsPerAccount: number;
  /** Steps a worker runs at once (its step queue's activity slots). */
  stepSlots: number;
  /** Steps that may wait for a worker's slots; past slots + queue a step is refused (503). */
  stepQueue: number;
  /** Scorings a worker runs at once; an account holds at most half of them while others wait. */
  scoringSlots: number;
}

/** Coding sandbox sessions on this worker: where workspaces live, which uids they run as, and their limits. */
export interface SandboxSettings {
  /** ARENA_SANDBOX_DIR: the arena's own folder for workspaces on this machine. */
  dir: string;
  /** The arena the folder is kept for, by its data folder: a worker claims `dir` for it, and removes workspaces only there. */
  arena: string;
  /** Each live session leases a uid of its own, each scoring's judge another (`uidRangeOf`); the last one is the isolation check's. */
  uidBase: number;
  uidCount: number;
  limits: SandboxLimits;
  quota: DiskQuota;
  /** Steps (exec, read, write) a coding session may take. */
  maxSteps: number;
  /**
   * How long a session's step or end waits for this worker to take it before the worker counts as
   * gone (the session then ends as `workspace lost`); said to the session's workflow when this
   * worker prepares its workspace.
   */
  pickupSeconds: number;
  capacity: CodingCapacity;
  /** Days a session's steps keep their full request and output after it ended; then only what the transcript shows. */
  stepRetentionDays: number;
}

/**
 * The default sandbox folder of the arena whose data folder is `dataDir`: one of its own on the
 * machine, in the OS temp folder, since the data folder is private to its owner and the sessions'
 * users could not reach a workspace inside it.
 */
export function defaultSandboxDir(dataDir: string): string {
  const key = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12);
  return path.join(os.tmpdir(), `arena-sandbox-${key}`);
}

export function sandboxTasksDir(e: SandboxEnv): string {
  return e.ARENA_SANDBOX_TASKS_DIR ? path.resolve(e.ARENA_SANDBOX_TASKS_DIR) : DEFAULT_SANDBOX_TASKS_DIR;
}

/** The sandbox's settings; `dataDir` is the arena's data folder (resolved), which names its default sandbox folder. */
export function sandboxSettings(e: SandboxEnv, dataDir: string): SandboxSettings {
  return {
    dir: e.ARENA_SANDBOX_DIR ? path.resolve(e.ARENA_SANDBOX_DIR) : defaultSandboxDir(dataDir),
    arena: dataDir,
    uidBase: e.ARENA_SANDBOX_UID_BASE,
    uidCount: e.ARENA_SANDBOX_UID_COUNT,
    maxSteps: e.ARENA_CODING_MAX_STEPS,
    pickupSeconds: e.ARENA_WORKSPACE_PICKUP_SECONDS,
    capacity: {
      sessionsPerAccount: e.ARENA_CODING_SESSIONS_PER_ACCOUNT,
      stepsPerAccount: e.ARENA_CODING_STEPS_PER_ACCOUNT,
      stepSlots: e.ARENA_CODING_STEP_SLOTS,
      stepQueue: e.ARENA_CODING_STEP_QUEUE,
      scoringSlots: e.ARENA_CODING_SCORING_SLOTS,
    },
    stepRetentionDays: e.ARENA_CODING_STEP_RETENTION_DAYS,
    limits: {
      memoryBytes: e.ARENA_SANDBOX_MEMORY_MB * MIB,
      processes: e.ARENA_SANDBOX_PROCESSES,
      cpuSeconds: e.ARENA_SANDBOX_CPU_SECONDS,
      outputBytes: e.ARENA_SANDBOX_OUTPUT_BYTES,
      fileSizeBytes: e.ARENA_SANDBOX_FILE_SIZE_MB * MIB,
      openFiles: e.ARENA_SANDBOX_OPEN_FILES,
      tmpBytes: e.ARENA_SANDBOX_TMP_MB * MIB,
    },
    quota: { bytes: e.ARENA_SANDBOX_DISK_MB * MIB, files: e.ARENA_SANDBOX_DISK_FILES },
  };
}
