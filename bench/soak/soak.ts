/**
 * The soak: the bench's stack under a steady mixed load for a number of minutes while faults are
 * injected on a schedule, then the accounting of every delivery it started. Memory is sampled all
 * along; latencies are kept per request. `npm run soak` and the short test both run `runSoak`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { sleep, waitFor } from '../lib/clock';
import { benchPool } from '../lib/db';
import { rssBytes } from '../lib/proc';
import { REPO } from '../stack/child';
import { startStack, type BenchStack } from '../stack/stack';
import { scheduleIds } from '../../worker/schedules';
import { TASK_QUEUE_DEFAULT } from '../../workflows/contracts';
import { CODING_CATEGORY } from '../../domain/deliveries';
import { SoakJudge, voteAccounting } from './judges';
import { measureStorage } from './storage';
import { BEHAVIOURS, PullRunners, startPushAgents, type Behaviour, type PullAgent, type RequestSample } from './agents';
import { main as arena } from '../../cli/main';
import {
  latencyRows,
  latencySeries,
  secondHalfSlopes,
  type DeliveryRow,
  type FaultRecord,
  type MemorySample,
  type SoakResult,
} from './report';

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
  /** Upper bound on the wait for started deliveries to end once the load stops. */
  settleMs?: number;
  /** false when dist/ was just built by the caller. */
  build?: boolean;
  keepDir?: boolean;
  log: (line: string) => void;
  /** Called once the stack is up, so a caller that gives up early (a test's timeout) can still stop it. */
  onStack?: (stack: BenchStack) => void;
}

export type LoadKind = 'sandbox push' | 'sandbox pull' | 'page' | 'feed' | 'live battle' | 'judge' | 'coding';

const DEFAULT_RATES: Record<LoadKind, number> = {
  'sandbox push': 2,
  'sandbox pull': 1,
  page: 1,
  feed: 2,
  'live battle': 0.2,
  judge: 1,
  coding: 0.05,
};
/** The coding sessions' task, and their deadline: the shortest the arena allows, so one given up ends inside the settling time. */
const CODING_TASK = 'python/leap-year';
const CODING_DEADLINE_SECONDS = 60;
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
/** Requests of one kind in flight at most: past it a tick is skipped, so an outage never piles up requests. */
const MAX_IN_FLIGHT = 16;
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * Where each fault sits in its round, as a fraction of the round: after its first fifth and done
 * before its last (20 s outages in a 2-minute round just fit), so with one round the latencies of
 * the first and last fifths are the stack's own, not an outage's.
 */
const FAULT_PLACES: Array<[FaultRecord['kind'], number]> = [
  ['worker-kill', 0.22],
  ['api-restart', 0.32],
  ['postgres-stop', 0.42],
  ['temporal-stop', 0.6],
];

/** Kinds of work the load leaves out (none now; kept so a report says so). */
export const LEFT_OUT: string[] = [];

interface Started {
  mode: 'push' | 'pull';
  behaviour: Behaviour;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/** Whether a delivery has ended: a coding session is `running` from its first step until it ends. */
const ended = (status: string) => status !== 'pending' && status !== 'running';

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

/** V8 heap used from a Prometheus text page, MB; NaN when it cannot be read (the process is down). */
async function heapUsedMb(url: string | undefined): Promise<number> {
  if (!url) return Number.NaN;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    const text = await res.text();
    const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([\d.e+]+)/m.exec(text);
    return match ? Number(match[1]) / 2 ** 20 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The worker prints its metrics address when it polls; a restarted worker prints a new one. */
async function workerMetricsUrl(logFile: string): Promise<string | undefined> {
  const text = await fs.readFile(logFile, 'utf8').catch(() => '');
  const all = [...text.matchAll(/metrics at (http:\/\/\S+)/g)];
  return all.at(-1)?.[1];
}

/** First writes per session id, from the worker's `delivery recorded` / `delivery failed` lines (one per write that changed the row). */
async function firstWritesBySession(logFile: string): Promise<Map<number, number>> {
  const text = await fs.readFile(logFile, 'utf8').catch(() => '');
  const counts = new Map<number, number>();
  for (const line of text.split('\n')) {
    if (!line.includes('delivery recorded') && !line.includes('delivery failed')) continue;
    const id = /"sessionId":\s*(\d+)/.exec(line) ?? /sessionId[=:]\s*(\d+)/.exec(line);
    if (id) counts.set(Number(id[1]), (counts.get(Number(id[1])) ?? 0) + 1);
  }
  return counts;
}

export async function runSoak(opts: SoakOptions): Promise<{ result: SoakResult; loadMs: number; dir: string }> {
  const loadMs = opts.minutes * 60_000;
  const rounds = opts.rounds ?? Math.max(1, Math.floor(opts.minutes / 5));
  const outageMs = opts.outageMs ?? 20_000;
  const rates = { ...DEFAULT_RATES, ...opts.rates };
  const deadlineSeconds = opts.deadlineSeconds ?? 20;
  const sampleMs = opts.sampleMs ?? 5_000;
  const settleMs = opts.settleMs ?? 180_000;
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
  // One push and one pull agent per behaviour, two fast ones of each.
  const mix: Behaviour[] = ['fast', ...BEHAVIOURS];
  // Two more fast push agents of a second owner: a live battle's two agents have different owners.
  const agents = await startPushAgents([...mix, 'fast', 'fast']);
  const samples: RequestSample[] = [];
  let loadStart = Date.now();
  const record = (s: Omit<RequestSample, 'at'> & { start: number }) =>
    samples.push({ kind: s.kind, at: s.start - loadStart, ms: s.ms, status: s.status });
  const runners = new PullRunners(stack.apiUrl, record);
  const timers: NodeJS.Timeout[] = [];
  // Cleared in teardown, so a run that fails half way leaves no sampler or fault running.
  let sampling = true;
  let faultsOn = true;
  const inFlight = new Map<string, Set<Promise<void>>>();
  try {
    const json = async <T>(method: string, url: string, key?: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${stack.apiUrl}${url}`, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const { api_key: key } = await json<{ api_key: string }>('POST', '/api/register');
    const { api_key: rivalKey } = await json<{ api_key: string }>('POST', '/api/register');
    const judgeAccount = await json<{ api_key: string; username: string }>('POST', '/api/register');
    const { id: judgeId } = await json<{ id: number }>('GET', '/api/account', judgeAccount.api_key);
    // The operator vouches for the soak's judge, registered from the same address as the agents' owners.
    const trusted = await arena(['judges', 'trust', judgeAccount.username], () => undefined, {
      ...process.env,
      DATABASE_URL: stack.databaseUrl,
    });
    if (trusted !== 0) throw new Error(`arena judges trust ${judgeAccount.username} failed`);
    const pushAgents: Array<{ id: number; behaviour: Behaviour }> = [];
    const pullAgents: PullAgent[] = [];
    for (const [i, behaviour] of mix.entries()) {
      const push = await json<{ id: number }>('POST', '/api/agents', key, {
        name: `soak-push-${behaviour}-${i}`,
        webhook_url: agents.urls[i],
      });
      pushAgents.push({ id: push.id, behaviour });
      const pull = await json<{ id: number; webhook_secret: string }>('POST', '/api/agents', key, {
        name: `soak-pull-${behaviour}-${i}`,
        mode: 'pull',
      });
      pullAgents.push({ id: pull.id, secret: pull.webhook_secret, behaviour });
    }
    // Indexed like the push servers: the soak's own push agents, then the second owner's.
    const allPush = [...pushAgents];
    for (const i of [0, 1]) {
      const rival = await json<{ id: number }>('POST', '/api/agents', rivalKey, {
        name: `soak-rival-${i}`,
        webhook_url: agents.urls[mix.length + i],
      });
      allPush.push({ id: rival.id, behaviour: 'fast' });
    }
    const agentBehaviour = new Map<number, Started>([
      ...allPush.map((a) => [a.id, { mode: 'push', behaviour: a.behaviour }] as const),
      ...pullAgents.map((a) => [a.id, { mode: 'pull', behaviour: a.behaviour }] as const),
    ]);
    runners.start(pullAgents);
    log(
      `${allPush.length} push (${allPush.length - pushAgents.length} of a second owner) and ${pullAgents.length} pull agents; load for ${opts.minutes} min, ${rounds} fault round(s)`,
    );

    // The load: each kind a ticker at its rate; a request that is still running when its cap is reached skips a tick.
    /** Each delivery the API acknowledged (202), with the row of the report it counts in. */
    const started = new Map<number, string>();
    let turn = 0;
    const request = async (
      kind: string,
      method: string,
      url: string,
      body?: unknown,
      as = key,
    ): Promise<Response | undefined> => {
      const start = Date.now();
      try {
        const res = await fetch(`${stack.apiUrl}${url}`, {
          method,
          headers: { authorization: `Bearer ${as}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        record({ kind, start, ms: Date.now() - start, status: res.status });
        return res;
      } catch {
        record({ kind, start, ms: Date.now() - start, status: 0 });
        return undefined;
      }
    };
    const sandbox = (mode: 'push' | 'pull') => async () => {
      const list = mode === 'push' ? pushAgents : pullAgents;
      const agent = list[turn++ % list.length]!;
      const res = await request(`sandbox ${mode}`, 'POST', `/api/agents/${agent.id}/sandbox`, {
        prompt: `soak prompt ${turn}`,
        deadline_seconds: deadlineSeconds,
      });
      if (res?.status === 202) {
        const { id } = (await res.json()) as { id: string };
        started.set(Number(id.split('-')[1]), `sandbox ${mode} ${agent.behaviour}`);
      } else await res?.body?.cancel();
    };
    // Coding sessions go to a fast pull agent, whose runner writes a file, runs a command and submits.
    const coding = async () => {
      const res = await request('coding start', 'POST', `/api/agents/${pullAgents[0]!.id}/sandbox`, {
        task: CODING_TASK,
        deadline_seconds: CODING_DEADLINE_SECONDS,
      });
      if (res?.status === 202) {
        const { id } = (await res.json()) as { id: string };
        started.set(Number(id.split('-')[1]), 'coding pull');
      } else await res?.body?.cancel();
    };
    const judge = new SoakJudge(
      (kind, method, url, body) => request(kind, method, url, body, judgeAccount.api_key),
      deadlineSeconds,
    );
    const pages = ['/', '/users', ...pushAgents.slice(0, 2).map((a) => `/agents/${a.id}`)];
    const load: Record<LoadKind, () => Promise<void>> = {
      'sandbox push': sandbox('push'),
      'sandbox pull': sandbox('pull'),
      page: async () => void (await request('page', 'GET', pages[turn++ % pages.length]!))?.body?.cancel(),
      feed: async () => {
        const all = [...pushAgents, ...pullAgents];
        const res = await request('feed', 'GET', `/api/agents/${all[turn++ % all.length]!.id}/activity`);
        await res?.body?.cancel();
      },
      'live battle': judge.liveBattle,
      judge: judge.judgeNext,
      coding,
    };

    loadStart = Date.now();
    for (const [kind, perSecond] of Object.entries(rates) as Array<[LoadKind, number]>) {
      if (!(perSecond > 0)) continue;
      const set = new Set<Promise<void>>();
      inFlight.set(kind, set);
      timers.push(
        setInterval(() => {
          if (set.size >= MAX_IN_FLIGHT) return;
          const p = load[kind]().catch(() => undefined);
          set.add(p);
          void p.finally(() => set.delete(p));
        }, 1000 / perSecond),
      );
    }

    // Memory: every process's RSS, and the API's and worker's V8 heap from their /metrics.
    const memory: MemorySample[] = [];
    let workerMetrics: { pid: number; url?: string } = { pid: 0 };
    const sample = async () => {
      const pids = stack.pids();
      // Read again after a restart, and after a failed read: the new worker prints its address once it polls.
      if (workerMetrics.pid !== pids.worker || !workerMetrics.url) {
        const url = await workerMetricsUrl(stack.logFile('worker'));
        workerMetrics = { pid: pids.worker ?? 0, url };
      }
      const rssMb: Record<string, number> = {};
      for (const name of ['api', 'worker', 'postgres', 'temporal'])
        rssMb[name] = pids[name] ? rssBytes(pids[name]) / 2 ** 20 : Number.NaN;
      const [api, worker] = await Promise.all([heapUsedMb(`${stack.apiUrl}/metrics`), heapUsedMb(workerMetrics.url)]);
      if (!Number.isFinite(worker)) workerMetrics.url = undefined;
      memory.push({ t: Date.now() - loadStart, rssMb, heapMb: { api, worker } });
    };
    const sampler = (async () => {
      while (sampling) {
        await sample().catch(() => undefined);
        await sleep(sampleMs);
      }
    })();

    // The faults, one after another on their schedule; each restores what it broke before the next.
    const faults: FaultRecord[] = [];
    const roundMs = loadMs / rounds;
    const schedule = Array.from({ length: rounds }, (_, r) =>
      FAULT_PLACES.map(([kind, place]) => ({ kind, at: r * roundMs + place * roundMs })),
    ).flat();
    const inject = async (kind: FaultRecord['kind']) => {
      switch (kind) {
        case 'worker-kill':
          return stack.killAndRestartWorker();
        case 'api-restart':
          return stack.restartApi();
        case 'postgres-stop':
          await stack.stopPostgres();
          await sleep(outageMs); // the outage's length is the point here, not a condition
          return stack.startPostgres();
        case 'temporal-stop':
          await stack.stopTemporal();
          await sleep(outageMs);
          return stack.startTemporal();
      }
    };
    const faulter = (async () => {
      for (const f of schedule) {
        // Short steps, so teardown is never held up by a fault still to come.
        while (faultsOn && Date.now() - loadStart < f.at) await sleep(Math.min(1_000, f.at - (Date.now() - loadStart)));
        if (!faultsOn || Date.now() - loadStart >= loadMs) break;
        const startMs = Date.now() - loadStart;
        log(`fault at ${Math.round(startMs / 1000)} s: ${f.kind}`);
        let error: string | undefined;
        try {
          await inject(f.kind);
        } catch (err) {
          error = err instanceof Error ? err.message : String(err);
          log(`fault ${f.kind} failed: ${error}`);
        }
        faults.push({ kind: f.kind, startMs, endMs: Date.now() - loadStart, ...(error ? { error } : {}) });
      }
    })();

    await sleep(loadMs); // the run's length
    for (const t of timers.splice(0)) clearInterval(t);
    log('load stopped; waiting for the last fault to be restored and the requests in flight');
    await faulter;
    // No new main prompts from here, so what is pending at the end was started in the run.
    await pauseDispatch(stack);
    // Whatever a failed fault left down is started again (no-ops when it is up).
    await stack.startPostgres().catch(() => undefined);
    await stack.startTemporal().catch(() => undefined);
    await Promise.all([...inFlight.values()].flatMap((set) => [...set]));

    // Every delivery the soak started, and every gym, must end: wait for it, bounded.
    const ours = [...agentBehaviour.keys()];
    const pendingCount = async () => {
      const { rows } = await pool.query<{ n: number }>(
        `select count(*)::int as n from sessions where agent_id = any($1::int[]) and status in ('pending', 'running')`,
        [ours],
      );
      return rows[0]!.n;
    };
    const settleStart = Date.now();
    await waitFor(
      async () => (await pendingCount().catch(() => 1)) === 0,
      'every delivery to end',
      settleMs,
      1_000,
    ).catch((err: Error) => log(`${err.message}: the pending ones count as lost`));
    log(`settled in ${Math.round((Date.now() - settleStart) / 1000)} s`);
    await runners.stop();
    sampling = false;
    await sampler;

    // The accounting, per kind of work and mode.
    const { rows } = await pool.query<{
      id: number;
      agent_id: number;
      kind: string;
      category: string;
      mode: string;
      status: string;
    }>(`select id, agent_id, kind, category, mode, status from sessions where agent_id = any($1::int[])`, [ours]);
    const writes = await firstWritesBySession(stack.logFile('worker'));
    const byId = new Map(rows.map((r) => [r.id, r]));
    const deliveries = new Map<string, DeliveryRow>();
    const rowFor = (kind: string): DeliveryRow => {
      let row = deliveries.get(kind);
      if (!row) {
        row = {
          kind,
          started: 0,
          recordedOnce: 0,
          lost: 0,
          recordedTwice: 0,
          sentTwice: 0,
          unacknowledged: 0,
          outcomes: {},
        };
        deliveries.set(kind, row);
      }
      return row;
    };
    const count = (row: DeliveryRow, id: number) => {
      const session = byId.get(id);
      const n = writes.get(id) ?? 0;
      if (!session || !ended(session.status)) row.lost += 1;
      else {
        row.outcomes[session.status] = (row.outcomes[session.status] ?? 0) + 1;
        if (n > 1) row.recordedTwice += 1;
        else row.recordedOnce += 1;
      }
    };
    for (const [id, label] of started) {
      const row = rowFor(label);
      row.started += 1;
      count(row, id);
    }
    for (const r of rows) {
      if (r.kind === 'sandbox') {
        if (started.has(r.id)) continue;
        // Written, but its 202 never reached the soak (a timeout or a restart in between).
        const s = agentBehaviour.get(r.agent_id)!;
        const row = rowFor(r.category === CODING_CATEGORY ? 'coding pull' : `sandbox ${s.mode} ${s.behaviour}`);
        row.unacknowledged += 1;
        if (!ended(r.status)) row.lost += 1;
        continue;
      }
      const row = rowFor(`${r.kind} ${r.mode}`);
      row.started += 1;
      count(row, r.id);
    }
    const sentTwice: string[] = [];
    for (const [key, n] of agents.received) {
      if (n < 2) continue;
      const [index, delivery = ''] = key.split(' ');
      const agent = allPush[Number(index)]!;
      sentTwice.push(`agent ${agent.id}: ${delivery} x${n}`);
      const kind = delivery.startsWith('sandbox-')
        ? `sandbox push ${agent.behaviour}`
        : `${delivery.split('-')[0]} push`;
      rowFor(kind).sentTwice += 1;
    }
    const recordedTwice = [...writes].filter(([, n]) => n > 1).map(([id, n]) => `session ${id} x${n}`);
    if (sentTwice.length + recordedTwice.length > 0) log(`duplicates: ${[...recordedTwice, ...sentTwice].join(', ')}`);

    const storage = await measureStorage(pool, stack.dir);

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
      deliveries: [...deliveries.values()].sort((a, b) => a.kind.localeCompare(b.kind)),
      duplicates: [...recordedTwice, ...sentTwice],
      votes: await voteAccounting(pool, judgeId, ours, judge.tally),
      faults,
      memory: {
        samples: memory,
        rssSlope: secondHalfSlopes(memory, 'rssMb', loadMs),
        heapSlope: secondHalfSlopes(memory, 'heapMb', loadMs),
      },
      latency: latencyRows(samples, loadMs),
      latencySeries: latencySeries(samples, Math.max(10_000, loadMs / 60)),
      storage,
    };
    return { result, loadMs, dir: stack.dir };
  } finally {
    sampling = false;
    faultsOn = false;
    for (const t of timers) clearInterval(t);
    await runners.stop().catch(() => undefined);
    await agents.close();
    await pool.end().catch(() => undefined);
    await stack.stop();
  }
}
