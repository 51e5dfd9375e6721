/**
 * Figure 4, reads: an agent's activity feed under autocannon at 64 connections, against a bare
 * Fastify + pg handler running the same queries in the same run.
 */
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import type { Pool } from 'pg';
import type { BenchProfile } from '../config';
import { sessionNumber, type ApiClient } from '../lib/api-client';
import { sessionCompletions } from '../lib/db';
import { paced } from '../lib/pacer';
import { round } from '../lib/stats';
import { startCpuMeter } from '../lib/cpu';
import { freePort } from '../../infra/ports';
import { figure, type FigureRow } from '../report/model';
import type { Progress } from '../report/progress';
import type { PushProfile, StageProfiler } from '../report/stage-profiler';
import { startChild } from '../stack/child';
import type { BenchStack } from '../stack/stack';
import type { Fleet } from '../push/fleet';
import { PROMPT } from '../push/systems';

export interface ReadRun {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  cpu: Record<string, number>;
}

export interface ReadsResult {
  agentId: number;
  feedSessions: number;
  connections: number;
  seconds: number;
  arena: ReadRun;
  bare: ReadRun;
  /** With --profile: where the CPU went during the arena's measured run. */
  profile?: PushProfile;
  figures: FigureRow[];
}

async function cannon(url: string, connections: number, seconds: number): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: seconds, pipelining: 1 });
}

async function measure(
  url: string,
  connections: number,
  seconds: number,
  cpuRoots: () => Record<string, number>,
  profiler?: StageProfiler,
): Promise<{ run: ReadRun; profile?: PushProfile }> {
  // A short first run warms the JIT and the pools, so both sides are measured warm.
  await cannon(url, connections, Math.max(1, Math.round(seconds / 3)));
  const meter = startCpuMeter(cpuRoots);
  await profiler?.start();
  const result = await cannon(url, connections, seconds);
  const profile = await profiler?.stop();
  const run = {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpu: meter.stop().percent,
  };
  return { run, profile };
}

export async function runReadsFigure(ctx: {
  stack: BenchStack;
  api: ApiClient;
  key: string;
  pool: Pool;
  fleet: Fleet;
  profile: BenchProfile;
  progress: Progress;
  profiler?: StageProfiler;
}): Promise<ReadsResult> {
  const { stack, progress } = ctx;
  const r = ctx.profile.reads;
  const port = await freePort();
  const bare = startChild({
    name: 'bare feed server',
    script: 'bench/reads/bare-feed-server.ts',
    env: { ...stack.env, BENCH_PORT: String(port) },
    logFile: stack.logFile('bare-feed'),
    ipc: true,
  });
  try {
    const agentId = ctx.fleet.reader;
    // A feed of a fixed length, so runs compare whatever else happened before them.
    const sent = await paced(50, r.feedSessions, () => ctx.api.sandbox(ctx.key, agentId, PROMPT, 30));
    await sessionCompletions(
      ctx.pool,
      sent.map((s) => sessionNumber(s.value!.id)),
      60_000,
    );
    await bare.message((m): m is { ready: true } => typeof m === 'object' && m !== null && 'ready' in m, 60_000);

    const path = `/api/agents/${agentId}/activity`;
    const bareUrl = `http://127.0.0.1:${port}${path}`;
    const arenaUrl = `${stack.apiUrl}${path}`;
    const [fromArena, fromBare] = await Promise.all([
      fetch(arenaUrl).then((res) => res.json()),
      fetch(bareUrl).then((res) => res.json()),
    ]);
    if (!isDeepStrictEqual(fromArena, fromBare))
      throw new Error(
        'the bare feed server does not answer what the arena answers; the read baseline would not be comparable',
      );

    progress.log(`reads: ${path} (${r.feedSessions} sessions) at ${r.connections} connections, ${r.seconds} s each`);
    const task = progress.task('reads', 2);
    const roots = (extra: Record<string, number>) => () => ({ ...stack.pids(), ...extra });
    const { run: bareRun } = await measure(bareUrl, r.connections, r.seconds, roots({ bare: bare.pid }));
    task.update(1);
    const { run: arenaRun, profile } = await measure(arenaUrl, r.connections, r.seconds, roots({}), ctx.profiler);
    task.done();
    progress.log(
      `reads: arena ${arenaRun.requestsPerSecond.toFixed(0)} req/s, bare ${bareRun.requestsPerSecond.toFixed(0)} req/s`,
    );
    const group = 'Reads';
    const note = `${r.connections} connections, ${r.seconds} s`;
    const baselineName = 'bare Fastify + pg, same queries';
    return {
      agentId,
      feedSessions: r.feedSessions,
      connections: r.connections,
      seconds: r.seconds,
      arena: arenaRun,
      bare: bareRun,
      profile,
      figures: [
        figure({
          group,
          name: 'activity feed requests/s',
          unit: 'req/s',
          value: round(arenaRun.requestsPerSecond),
          baselineName,
          baseline: round(bareRun.requestsPerSecond),
          better: 'higher',
          target: '>= 0.5x',
          met: arenaRun.requestsPerSecond / bareRun.requestsPerSecond >= 0.5,
          note,
        }),
        figure({
          group,
          name: 'activity feed latency p50',
          unit: 'ms',
          value: arenaRun.p50,
          baselineName,
          baseline: bareRun.p50,
          better: 'lower',
          note,
        }),
        figure({
          group,
          name: 'activity feed latency p99',
          unit: 'ms',
          value: arenaRun.p99,
          baselineName,
          baseline: bareRun.p99,
          better: 'lower',
          note,
        }),
      ],
    };
  } finally {
    await bare.stop(5_000);
  }
}
