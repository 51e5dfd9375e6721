/**
 * Figure 1, push: sandbox deliveries through the API to loopback agents at rising rates, against
 * (a) the same signed POSTs from a bare loop, (b) a one-activity workflow on the same server, and
 * (c) the same job with nothing of ours (bare Fastify and pg, one insert, a start, one activity
 * that signs, POSTs and records).
 */
import crypto from 'node:crypto';
import type { Pool } from 'pg';
import type { BenchProfile } from '../config';
import type { ApiClient } from '../lib/api-client';
import { round } from '../lib/stats';
import type { EngineBaseline } from '../engine/engine';
import type { ChartSpec, FigureRow } from '../report/model';
import { figure } from '../report/model';
import type { Progress } from '../report/progress';
import type { PushProfile, StageProfiler } from '../report/stage-profiler';
import { freePort } from '../../infra/ports';
import { apiNodeArgs } from '../stack/api-command';
import { startChild } from '../stack/child';
import type { BenchStack } from '../stack/stack';
import type { Fleet } from './fleet';
import { runStages, type StageResult } from './stages';
import { arenaSystem, bareLoopSystem, engineSystem, sameJobSystem } from './systems';

export interface PushResult {
  stages: { arena: StageResult[]; engine: StageResult[]; bare: StageResult[]; sameJob: StageResult[] };
  /** The offered rate the latency figures are read at: the highest the arena kept up with. */
  referenceRate: number;
  /** With --profile: where the CPU went during the arena's stages. */
  profile?: PushProfile;
  figures: FigureRow[];
  charts: { overhead: ChartSpec; endToEnd: ChartSpec };
}

export async function runPushFigure(ctx: {
  stack: BenchStack;
  api: ApiClient;
  key: string;
  pool: Pool;
  engine: EngineBaseline;
  fleet: Fleet;
  profile: BenchProfile;
  progress: Progress;
  profiler?: StageProfiler;
}): Promise<PushResult> {
  const { stack, progress, engine, fleet } = ctx;
  const p = ctx.profile.push;
  const farm = fleet.farm;
  const agents = fleet.answering;
  await ctx.profiler?.start();
  const arena = await runStages(
    arenaSystem({ stack, api: ctx.api, key: ctx.key, agents, farm, pool: ctx.pool }),
    p.rates,
    p.stageSeconds,
    progress,
  );
  const cpuProfile = await ctx.profiler?.stop();
  // The baselines run at every rate the arena ran (so latencies compare at equal load), then on up to their own ceilings.
  const ran = arena.map((s) => s.offered);
  const highestRan = ran.at(-1) ?? Infinity; // nothing ran, nothing lies beyond
  const beyond = (extra: number[]) => [...ran, ...extra.filter((r) => r > highestRan)];
  const engineStages = await runStages(
    engineSystem({ stack, client: stack.temporal, engine }),
    beyond(p.engineExtra),
    p.stageSeconds,
    progress,
    ran.length,
  );
  // The bare loop posts to the same answering agents' servers.
  const bare = bareLoopSystem({
    stack,
    farm,
    urls: farm.urls.slice(0, agents.length),
    secret: `agsec_${crypto.randomBytes(32).toString('base64url')}`,
  });
  // oxlint-disable-next-line typescript/no-misused-promises -- Promise#finally waits for the promise its callback returns.
  const bareStages = await runStages(bare, beyond(p.bareExtra), p.stageSeconds, progress, ran.length).finally(() =>
    bare.close(),
  );
  const sameJobStages = await runSameJob(ctx, beyond(p.engineExtra), ran.length);
  return { ...summarizePush(arena, engineStages, bareStages, sameJobStages), profile: cpuProfile };
}

/** The same-job baseline's stages, its API in a process of its own with the arena API's Node flags. */
async function runSameJob(
  ctx: Parameters<typeof runPushFigure>[0],
  rates: number[],
  first: number,
): Promise<StageResult[]> {
  const { stack, fleet, engine } = ctx;
  const port = await freePort();
  const api = startChild({
    name: 'same-job api',
    script: 'bench/push/same-job-api.ts',
    env: { ...stack.env, BENCH_PORT: String(port) },
    logFile: stack.logFile('same-job-api'),
    ipc: true,
    nodeArgs: apiNodeArgs().slice(0, -1),
  });
  try {
    await api.message((m): m is { ready: true } => typeof m === 'object' && m !== null && 'ready' in m, 60_000);
    const system = sameJobSystem({
      stack,
      farm: fleet.farm,
      urls: fleet.farm.urls.slice(0, fleet.answering.length),
      apiUrl: `http://127.0.0.1:${port}`,
      apiPid: api.pid,
      engine,
      pool: ctx.pool,
    });
    return await runStages(system, rates, ctx.profile.push.stageSeconds, ctx.progress, first);
  } finally {
    await api.stop(10_000);
  }
}

export function summarizePush(
  arena: StageResult[],
  engine: StageResult[],
  bare: StageResult[],
  sameJob: StageResult[],
): PushResult {
  const sustained = (stages: StageResult[]) =>
    Math.max(...stages.map((s) => (Number.isFinite(s.achieved) ? s.achieved : 0)));
  const kept = arena.filter((s) => s.keptUp);
  const referenceStage = kept.at(-1) ?? arena[0];
  if (!referenceStage) throw new Error('the arena ran no stage');
  const reference = referenceStage.offered;
  const at = (stages: StageResult[]) => {
    const stage = stages.find((s) => s.offered === reference) ?? stages.at(-1);
    if (!stage) throw new Error('a delivery system ran no stage');
    return stage;
  };
  const [a, b, c, d] = [at(arena), at(engine), at(bare), at(sameJob)];
  const group = 'Push';
  const throughput = sustained(arena);
  const engineThroughput = sustained(engine);
  const sameJobThroughput = sustained(sameJob);
  const rows: FigureRow[] = [
    figure({
      group,
      name: 'sustained deliveries/s',
      unit: '/s',
      value: round(throughput),
      baselineName: '(c) same job, nothing of ours',
      baseline: round(sameJobThroughput),
      better: 'higher',
      target: '>= 0.9x (c)',
      met: throughput / sameJobThroughput >= 0.9,
    }),
    figure({
      group,
      name: 'sustained deliveries/s',
      unit: '/s',
      value: round(throughput),
      baselineName: '(b) engine: 1-activity workflow',
      baseline: round(engineThroughput),
      better: 'higher',
      target: '>= 0.9x (b)',
      met: throughput / engineThroughput >= 0.9,
    }),
    figure({
      group,
      name: 'sustained deliveries/s',
      unit: '/s',
      value: round(throughput),
      baselineName: '(a) bare signed-POST loop',
      baseline: round(sustained(bare)),
      better: 'higher',
    }),
  ];
  const note = `at ${reference}/s offered`;
  // The target is a ratio to the engine's own start -> activity in the same run.
  for (const [pct, target] of [
    ['p50', 1.2],
    ['p95', undefined],
    ['p99', undefined],
  ] as const) {
    rows.push(
      figure({
        group,
        name: `dispatch overhead ${pct}`,
        unit: 'ms',
        value: round(a.overhead[pct]),
        baselineName: '(b) start -> activity ran',
        baseline: round(b.overhead[pct]),
        better: 'lower',
        ...(target === undefined
          ? {}
          : { target: `<= ${target}x (b)`, met: a.overhead[pct] <= target * b.overhead[pct] }),
        note,
      }),
    );
  }
  /** The arena's latency at `pct` against a baseline's, with no target. */
  const latency = (field: 'overhead' | 'endToEnd', pct: 'p50' | 'p99', baselineName: string, base: StageResult) =>
    figure({
      group,
      name: `${field === 'overhead' ? 'dispatch overhead' : 'end-to-end'} ${pct}`,
      unit: 'ms',
      value: round(a[field][pct]),
      baselineName,
      baseline: round(base[field][pct]),
      better: 'lower',
      note,
    });
  const pcts = ['p50', 'p99'] as const;
  rows.push(
    ...pcts.map((pct) => latency('overhead', pct, '(a) POST sent -> received', c)),
    ...pcts.flatMap((pct) => [
      latency('overhead', pct, '(c) same job: accepted -> received', d),
      latency('endToEnd', pct, '(c) same job: sent -> recorded', d),
    ]),
    ...pcts.map((pct) => latency('endToEnd', pct, '(b) start -> workflow closed', b)),
  );
  return {
    stages: { arena, engine, bare, sameJob },
    referenceRate: reference,
    figures: rows,
    charts: {
      overhead: latencyChart(
        'Push dispatch overhead against offered load',
        'accepted -> agent received (ms)',
        arena,
        engine,
        bare,
        sameJob,
        'overhead',
      ),
      endToEnd: latencyChart(
        'Push end-to-end time against offered load',
        'sent -> recorded (ms)',
        arena,
        engine,
        bare,
        sameJob,
        'endToEnd',
      ),
    },
  };
}

function latencyChart(
  title: string,
  yLabel: string,
  arena: StageResult[],
  engine: StageResult[],
  bare: StageResult[],
  sameJob: StageResult[],
  field: 'overhead' | 'endToEnd',
): ChartSpec {
  const series = (stages: StageResult[], pct: 'p50' | 'p95' | 'p99') =>
    stages.map((s) => [s.offered, s[field][pct]] as [number, number]);
  return {
    title,
    xLabel: 'offered deliveries/s',
    yLabel,
    logY: true,
    logX: true,
    series: [
      { name: 'arena p50', points: series(arena, 'p50'), color: '#1f77b4' },
      { name: 'arena p95', points: series(arena, 'p95'), color: '#1f77b4', dashed: true },
      { name: 'arena p99', points: series(arena, 'p99'), color: '#0b3d66' },
      { name: '(b) engine p50', points: series(engine, 'p50'), color: '#ff7f0e' },
      { name: '(b) engine p99', points: series(engine, 'p99'), color: '#a34d00' },
      { name: '(a) bare loop p50', points: series(bare, 'p50'), color: '#2ca02c' },
      { name: '(a) bare loop p99', points: series(bare, 'p99'), color: '#145214' },
      { name: '(c) same job p50', points: series(sameJob, 'p50'), color: '#9467bd' },
      { name: '(c) same job p99', points: series(sameJob, 'p99'), color: '#4b2c6b' },
    ],
  };
}
