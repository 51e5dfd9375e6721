/**
 * The soak: the bench's stack under a steady mixed load for a number of minutes while faults are
 * injected on a schedule, then the accounting of every delivery it started. Memory is sampled all
 * along; latencies are kept per request. `npm run soak` and the short test both run `runSoak`.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { sleep, waitFor } from '../lib/clock';
import { benchPool } from '../lib/db';
import { REPO } from '../stack/child';
import { startStack, type BenchStack } from '../stack/stack';
import { scheduleIds } from '../../worker/schedules';
import { TASK_QUEUE_DEFAULT } from '../../workflows/contracts';
import { accountDeliveries, firstWritesBySession, type EndedRow } from './accounting';
import { BEHAVIOURS, PullRunners, startPushAgents, type Behaviour, type RequestSample } from './agents';
import { runFaults } from './faults';
import { voteAccounting } from './judges';
import { registerCast, startLoad, type Load, type LoadKind } from './load';
import { sampleMemory } from './memory';
import { latencyRows, latencySeries, secondHalfSlopes, type SoakResult } from './report';
import { settle } from './settle';
import { measureStorage } from './storage';

export interface SoakOptions {
  minutes: number;
  /** Fault rounds; each kills the worker, restarts the API, stops PostgreSQL, then Temporal, once. Default: one per 5 minutes. */
  rounds?: number;
  /** How long PostgreSQL and Temporal stay down. */
  outageMs?: number;
  /** Requests a second per kind of load. */
  rates?: Partial<Record<LoadKind, number>>;
  deadlineSeconds?: number;
  sampleMs?: number;
  /**
   * Upper bound on the whole settling once the load stops. Each open delivery is waited for up to
   * its own bound (settle.ts, settleBoundMs); this only caps the total.
   */
  settleMs?: number;
  /** false when dist/ was just built by the caller. */
  build?: boolean;
  keepDir?: boolean;
  log: (line: string) => void;
  /** Called once the stack is up, so a caller that gives up early (a test's timeout) can still stop it. */
  onStack?: (stack: BenchStack) => void;
}

const DEFAULT_RATES: Record<LoadKind, number> = {
  'sandbox push': 2,
  'sandbox pull': 1,
  page: 1,
  feed: 2,
  'live battle': 0.2,
  judge: 1,
  coding: 0.05,
};
/**
 * The schedules brought back into the run (the bench leaves them out): a dispatch step every 15 s,
 * each agent due a main prompt 20 s after its last, and the leaderboard refreshed every 2 minutes.
 */
const SCHEDULE_SETTINGS = {
  BENCH_SCHEDULES: '1',
  ARENA_DISPATCH_INTERVAL: '15',
  ARENA_MIN_GAP_SECONDS: '20',
  ARENA_LEADERBOARD_INTERVAL: '120',
};

/** Kinds of work the load leaves out (none now; kept so a report says so). */
export const LEFT_OUT: string[] = [];

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/** Pauses the dispatch schedule, retrying while Temporal comes back from a fault. */
async function pauseDispatch(stack: BenchStack): Promise<void> {
  // Its own connection: the stack's was made before Temporal was stopped and started again.
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    const client = new Client({ connection, namespace: stack.env.TEMPORAL_NAMESPACE ?? 'default' });
    const handle = client.schedule.getHandle(scheduleIds(stack.env.TEMPORAL_TASK_QUEUE ?? TASK_QUEUE_DEFAULT).dispatch);
    let last = '';
    await waitFor(
      () =>
        handle.pause('the soak has stopped its load').then(
          () => true,
          (err: Error) => ((last = err.message), false),
        ),
      () => `the dispatch schedule to pause (${last})`,
      60_000,
      1_000,
    );
  } finally {
    await connection.close();
  }
}

export async function runSoak(opts: SoakOptions): Promise<{ result: SoakResult; loadMs: number; dir: string }> {
  const loadMs = opts.minutes * 60_000;
  const rounds = opts.rounds ?? Math.max(1, Math.floor(opts.minutes / 5));
  const rates = { ...DEFAULT_RATES, ...opts.rates };
  const deadlineSeconds = opts.deadlineSeconds ?? 20;
  const startedAt = new Date();
  const log = opts.log;

  const stack: BenchStack = await startStack({
    log,
    keepDir: opts.keepDir,
    build: opts.build,
    env: {
      ...SCHEDULE_SETTINGS,
      // Main prompts and live battles end by the soak's deadline, and one judge votes all run.
      ARENA_MAIN_DEADLINE_SECONDS: String(deadlineSeconds),
      ARENA_DAILY_VOTES: '1000000',
    },
  });
  opts.onStack?.(stack);
  const pool = benchPool(stack.databaseUrl);
  // One push and one pull agent per behaviour, two fast ones of each, and two fast push agents of a second owner.
  const mix: Behaviour[] = ['fast', ...BEHAVIOURS];
  const pushServers = await startPushAgents([...mix, 'fast', 'fast']);
  const samples: RequestSample[] = [];
  let loadStart = Date.now();
  const record = (s: Omit<RequestSample, 'at'> & { start: number }) =>
    samples.push({ kind: s.kind, at: s.start - loadStart, ms: s.ms, status: s.status });
  const runners = new PullRunners(stack.apiUrl, record);
  // Stopped in teardown, so a run that fails half way leaves no load, sampler or fault running.
  let load: Load | undefined;
  let memory: ReturnType<typeof sampleMemory> | undefined;
  let faults: ReturnType<typeof runFaults> | undefined;
  try {
    const cast = await registerCast(stack, mix, pushServers.urls);
    runners.start(cast.pullAgents);
    log(
      `${cast.allPush.length} push (${cast.allPush.length - cast.pushAgents.length} of a second owner) and ${cast.pullAgents.length} pull agents; load for ${opts.minutes} min, ${rounds} fault round(s)`,
    );
    loadStart = Date.now();
    load = startLoad(stack, cast, { rates, deadlineSeconds }, record);
    memory = sampleMemory(stack, opts.sampleMs ?? 5_000, () => loadStart);
    faults = runFaults(stack, { loadStart, loadMs, rounds, outageMs: opts.outageMs ?? 20_000 }, log);

    await sleep(loadMs); // the run's length
    load.stop();
    log('load stopped; waiting for the last fault to be restored and the requests in flight');
    const faultsDone = await faults.done;
    // No new main prompts from here, so what is pending at the end was started in the run.
    await pauseDispatch(stack);
    // Whatever a failed fault left down is started again (no-ops when it is up).
    await stack.startPostgres().catch(() => undefined);
    await stack.startTemporal().catch(() => undefined);
    await load.drain();

    // Every delivery the soak started, and every gym, must end: each open one is followed through
    // its workflow to its end, or judged lost or overdue, within its bound.
    const ours = [...cast.agents.keys()];
    const settled = await settle({
      temporalAddress: stack.temporalAddress,
      namespace: stack.env.TEMPORAL_NAMESPACE ?? 'default',
      pool,
      agents: ours,
      restoredAt: Math.max(loadStart, ...faultsDone.map((f) => loadStart + f.endMs)),
      capMs: opts.settleMs ?? 180_000,
      workerLog: stack.logFile('worker'),
      log,
    });
    await runners.stop();
    const memorySamples = await memory.stop();

    const { rows } = await pool.query<EndedRow>(
      `select id, agent_id, kind, category, mode, status from sessions where agent_id = any($1::int[])`,
      [ours],
    );
    const { deliveries, duplicates } = accountDeliveries({
      rows,
      started: load.started,
      writes: await firstWritesBySession(stack.logFile('worker')),
      agents: cast.agents,
      pushAgents: cast.allPush,
      received: pushServers.received,
    });
    if (duplicates.length > 0) log(`duplicates: ${duplicates.join(', ')}`);

    const result: SoakResult = {
      run: {
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        minutes: opts.minutes,
        commit: git(['rev-parse', 'HEAD']),
        dirty: git(['status', '--porcelain']) !== '',
        machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', node: process.version },
        leftOut: LEFT_OUT,
      },
      deliveries,
      duplicates,
      settle: settled,
      votes: await voteAccounting(pool, cast.judge.id, ours, load.judge.tally),
      faults: faultsDone,
      memory: {
        samples: memorySamples,
        rssSlope: secondHalfSlopes(memorySamples, 'rssMb', loadMs),
        heapSlope: secondHalfSlopes(memorySamples, 'heapMb', loadMs),
      },
      latency: latencyRows(samples, loadMs),
      latencySeries: latencySeries(samples, Math.max(10_000, loadMs / 60)),
      storage: await measureStorage(pool, stack.dir),
    };
    return { result, loadMs, dir: stack.dir };
  } finally {
    load?.stop();
    faults?.stop();
    await memory?.stop();
    await runners.stop().catch(() => undefined);
    await pushServers.close();
    await pool.end().catch(() => undefined);
    await stack.stop();
  }
}
