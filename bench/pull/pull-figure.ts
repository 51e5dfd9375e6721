/**
 * Figure 2, pull: 10,000 idle long-polls held by one API process (memory and CPU while idle),
 * then work queued for a sample of them (wake latency: queued -> long-poll answered). Baseline:
 * a bare Node HTTP server holding the same number of requests, woken by a bare LISTEN/NOTIFY.
 */
import type { Pool } from 'pg';
import type { BenchProfile } from '../config';
import type { ApiClient } from '../lib/api-client';
import { sessionNumber } from '../lib/api-client';
import { sleep, waitFor } from '../lib/clock';
import { startCpuMeter } from '../lib/cpu';
import { paced } from '../lib/pacer';
import { rssBytes } from '../lib/proc';
import { summarize, type Summary } from '../lib/stats';
import { freePort } from '../../infra/ports';
import type { FigureRow } from '../report/model';
import type { Progress } from '../report/progress';
import { startChild } from '../stack/child';
import type { BenchStack } from '../stack/stack';
import { BARE_CHANNEL } from './bare-channel';
import { LongPolls, type LongPollTarget, type WorkHandler } from './long-polls';
import { pullRows } from './pull-rows';
import { seedPullAgents, type SeededAgent } from './seed-agents';

/** Share of the long-polls that must be waiting in the server before it counts as holding them all. */
const WAITING_SHARE = 0.995;

export interface PullSide {
  /** RSS right after start-up, before any long-poll. */
  startRssMb: number;
  /** Highest RSS sampled while the long-polls were idle. */
  idleRssMb: number;
  /** The V8 heap at the end of the idle phase (what RSS holds for JavaScript), where the server reports it. */
  idleHeapMb?: { used: number; total: number };
  /** Percent of one core while idle, the server process alone. */
  idleCpuPercent: number;
  /** CPU of every process while idle (PostgreSQL's share is the re-checks' queries). */
  idleCpu: Record<string, number>;
  openedInSeconds: number;
  wake: Summary;
  /** The arena's wake split at the claim (work_items.leased_at): queued -> claim began, claim began -> answer received. */
  wakeSplit?: { toClaim: Summary; claimToAnswer: Summary };
  errors: number;
  lastError?: string;
}

export interface PullResult {
  polls: number;
  idleSeconds: number;
  wakes: number;
  arena: PullSide;
  bare: PullSide;
  figures: FigureRow[];
}

interface SideDriver {
  name: string;
  pid(): number;
  target: LongPollTarget;
  /** Long-polls the server itself counts as waiting. */
  waiting(): Promise<number>;
  onWork: WorkHandler;
  /** Wakes the sampled agents at the profile's rate; resolves with wake latencies once every one was answered. */
  wake(agents: SeededAgent[]): Promise<{ latencies: number[]; split?: PullSide['wakeSplit'] }>;
  /** The server's V8 heap, if it reports it. */
  heap?(): Promise<PullSide['idleHeapMb']>;
}

async function measureSide(
  driver: SideDriver,
  agents: SeededAgent[],
  sample: SeededAgent[],
  ctx: { stack: BenchStack; profile: BenchProfile; progress: Progress },
): Promise<PullSide> {
  const p = ctx.profile.pull;
  const startRss = rssBytes(driver.pid());
  const polls = new LongPolls(driver.target, driver.onWork);
  const task = ctx.progress.task(`${driver.name}: opening long-polls`, agents.length);
  const openedAt = Date.now();
  try {
    await paced(agents.length / p.rampSeconds, agents.length, async (i) => polls.start(agents[i]!.id));
    await waitFor(
      async () => {
        const n = await driver.waiting();
        task.update(n);
        // A few are always between two polls (renewed after 50 s), so not quite every one.
        return n >= Math.floor(agents.length * WAITING_SHARE);
      },
      () =>
        `${agents.length} long-polls to be waiting in ${driver.name} (client: ${polls.open} open, ${polls.errors} errors${polls.lastError ? `, last: ${polls.lastError}` : ''})`,
      120_000,
      500,
    );
    task.done();
    const openedInSeconds = (Date.now() - openedAt) / 1000;
    ctx.progress.log(
      `pull: ${agents.length} long-polls waiting in ${driver.name} after ${openedInSeconds.toFixed(1)} s; idle for ${p.idleSeconds} s`,
    );

    const idleTask = ctx.progress.task(`${driver.name}: idle`, p.idleSeconds);
    const meter = startCpuMeter(() => ({ ...ctx.stack.pids(), [driver.name]: driver.pid() }));
    let idleRss = 0;
    for (let s = 0; s < p.idleSeconds; s++) {
      await sleep(1000);
      idleRss = Math.max(idleRss, rssBytes(driver.pid()));
      idleTask.update(s + 1);
    }
    const idleCpu = meter.stop().percent;
    const idleHeapMb = await driver.heap?.();
    const idleCpuPercent = idleCpu[driver.name];
    if (idleCpuPercent === undefined) throw new Error(`the CPU meter has no figure for ${driver.name}`);
    idleTask.done();

    const wakeTask = ctx.progress.task(`${driver.name}: wakes`, sample.length);
    const wakes = await driver.wake(sample);
    wakeTask.done();
    await sleep(500); // the last results are posted after their answer arrived
    return {
      startRssMb: startRss / 2 ** 20,
      idleRssMb: idleRss / 2 ** 20,
      ...(idleHeapMb ? { idleHeapMb } : {}),
      idleCpuPercent,
      idleCpu,
      openedInSeconds,
      wake: summarize(wakes.latencies),
      wakeSplit: wakes.split,
      errors: polls.errors,
      lastError: polls.lastError || undefined,
    };
  } finally {
    polls.stop();
  }
}

/** arena_long_polls_open from the API's /metrics. */
async function openLongPolls(apiUrl: string): Promise<number> {
  const text = await fetch(`${apiUrl}/metrics`).then((res) => res.text());
  const match = /^arena_long_polls_open (\d+)/m.exec(text);
  return match ? Number(match[1]) : 0;
}

/** The V8 heap's used and total size from the API's /metrics (prom-client's default process metrics). */
async function apiHeap(apiUrl: string): Promise<PullSide['idleHeapMb']> {
  const text = await fetch(`${apiUrl}/metrics`).then((res) => res.text());
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  const used = read('nodejs_heap_size_used_bytes');
  const total = read('nodejs_heap_size_total_bytes');
  return Number.isFinite(used) && Number.isFinite(total) ? { used, total } : undefined;
}

function pickSample(agents: SeededAgent[], n: number): SeededAgent[] {
  // Spread over the whole range, deterministic, so runs wake the same agents.
  const step = agents.length / n;
  return Array.from({ length: Math.min(n, agents.length) }, (_, i) => agents[Math.floor(i * step)]!);
}

export async function runPullFigure(ctx: {
  stack: BenchStack;
  api: ApiClient;
  key: string;
  userId: number;
  pool: Pool;
  profile: BenchProfile;
  progress: Progress;
}): Promise<PullResult> {
  const { stack, profile, progress, pool } = ctx;
  const p = profile.pull;
  const agents = await seedPullAgents(pool, ctx.userId, p.polls, stack.env.ARENA_ENCRYPTION_KEY!);
  const sample = pickSample(agents, p.wakes);
  const secretOf = new Map(agents.map((a) => [a.id, a.secret]));
  progress.log(`pull: ${agents.length} pull agents seeded`);

  // Baseline first, on a machine otherwise at rest.
  const port = await freePort();
  const bareServer = startChild({
    name: 'bare poll server',
    script: 'bench/pull/bare-poll-server.ts',
    env: { ...stack.env, BENCH_PORT: String(port) },
    logFile: stack.logFile('bare-poll'),
    ipc: true,
  });
  let bare: PullSide;
  try {
    await bareServer.message((m): m is { ready: true } => typeof m === 'object' && m !== null && 'ready' in m, 60_000);
    const woken = new Map<number, number>();
    bare = await measureSide(
      {
        name: 'bare server',
        pid: () => bareServer.pid,
        target: { port, path: (id) => `/wait/${id}`, headers: () => ({}) },
        waiting: async () =>
          ((await fetch(`http://127.0.0.1:${port}/stats`).then((res) => res.json())) as { waiting: number }).waiting,
        onWork: (id, _body, at) => void woken.set(id, at),
        async wake(sampled) {
          const queued = new Map<number, number>();
          await paced(p.wakesPerSecond, sampled.length, async (i) => {
            const { rows } = await pool.query<{ at: number }>(
              `select pg_notify($1, $2), (extract(epoch from now()) * 1000)::float8 as at`,
              [BARE_CHANNEL, String(sampled[i]!.id)],
            );
            queued.set(sampled[i]!.id, rows[0]!.at);
          });
          await waitFor(
            () => sampled.every((a) => woken.has(a.id)),
            'every woken long-poll of the bare server to answer',
            30_000,
            50,
          );
          return { latencies: sampled.map((a) => woken.get(a.id)! - queued.get(a.id)!) };
        },
      },
      agents,
      sample,
      ctx,
    );
  } finally {
    await bareServer.stop(5_000);
  }

  // A fresh API process, so its memory is that of long-polls and not of the figures before.
  await stack.restartApi();
  const received = new Map<string, number>();
  const arena = await measureSide(
    {
      name: 'api',
      pid: () => stack.api.pid,
      target: {
        port: Number(new URL(stack.apiUrl).port),
        path: (id) => `/api/agents/${id}/work/next?wait=50`,
        headers: (id) => ({ 'x-arena-secret': secretOf.get(id)! }),
      },
      waiting: () => openLongPolls(stack.apiUrl),
      heap: () => apiHeap(stack.apiUrl),
      async onWork(id, body, at) {
        const workId = (body as { work_id: string }).work_id;
        received.set(workId, at);
        // Answer as a runner would, so each delivery ends recorded and the agent polls again.
        await ctx.api
          .request('POST', `/api/agents/${id}/work/${workId}/result`, {
            body: { response: 'ok' },
            headers: { 'x-arena-secret': secretOf.get(id)! },
          })
          .catch(() => undefined);
      },
      async wake(sampled) {
        const sent = await paced(p.wakesPerSecond, sampled.length, (i) =>
          ctx.api.sandbox(ctx.key, sampled[i]!.id, 'Benchmark pull prompt.', 60),
        );
        const failed = sent.find((s) => s.error);
        if (failed) throw new Error(`a pull delivery could not be started: ${failed.error}`);
        const ids = sent.map((s) => s.value!.id);
        await waitFor(
          () => ids.every((id) => received.has(id)),
          'every woken long-poll of the API to answer',
          60_000,
          50,
        );
        const { rows } = await pool.query<{ session_id: number; queued_ms: number; leased_ms: number }>(
          `select session_id, (extract(epoch from created_at) * 1000)::float8 as queued_ms, (extract(epoch from leased_at) * 1000)::float8 as leased_ms
           from work_items where session_id = any($1::int[])`,
          [ids.map(sessionNumber)],
        );
        const byId = new Map(rows.map((r) => [r.session_id, r]));
        const row = (id: string) => byId.get(sessionNumber(id));
        return {
          latencies: ids.map((id) => received.get(id)! - (row(id)?.queued_ms ?? NaN)),
          split: {
            toClaim: summarize(ids.map((id) => (row(id)?.leased_ms ?? NaN) - (row(id)?.queued_ms ?? NaN))),
            claimToAnswer: summarize(ids.map((id) => received.get(id)! - (row(id)?.leased_ms ?? NaN))),
          },
        };
      },
    },
    agents,
    sample,
    ctx,
  );

  const rows = pullRows(p, arena, bare);
  progress.log(
    `pull: API ${arena.idleRssMb.toFixed(0)} MB, wake p99 ${arena.wake.p99.toFixed(1)} ms; bare ${bare.idleRssMb.toFixed(0)} MB, wake p99 ${bare.wake.p99.toFixed(1)} ms`,
  );
  return { polls: p.polls, idleSeconds: p.idleSeconds, wakes: p.wakes, arena, bare, figures: rows };
}
