/**
 * Figure 5, scale: an arena of 10,000 agents grown to each size of main answers and votes, and at
 * each size judge/next and votes over HTTP at 16 concurrent judges against the old judge/next
 * query on the same database (the baseline), and one dispatch step's session creation for every
 * due agent; at the largest, the leaderboard refresh (every board) in a process of its own.
 */
import { MikroORM } from '@mikro-orm/postgresql';
import { Pool } from 'pg';
import type { BenchProfile } from '../config';
import type { ApiClient } from '../lib/api-client';
import { summarize } from '../lib/stats';
import type { ChartSpec, FigureRow } from '../report/model';
import type { Progress } from '../report/progress';
import type { BenchStack } from '../stack/stack';
import { loadConfig } from '../../infra/config';
import { ormConfig } from '../../infra/db/orm.config';
import { measureDispatchStep } from './dispatch';
import { runJudges } from './judges';
import { oldLeastJudgedPair, type OldQueryCall } from './old-judge-query';
import { measureRefit, type RefitOutcome } from './refit';
import {
  baselineFromCalls,
  dispatchMsPer1000,
  scaleChart,
  scaleFigures,
  type ScaleLimits,
  type ScaleStep,
} from './scale-report';
import { growScaleArena, seedScaleArena } from './seed';

export interface ScaleResult {
  agents: number;
  owners: number;
  prompts: number;
  limits: ScaleLimits;
  steps: ScaleStep[];
  refit?: RefitOutcome;
  chart: ChartSpec;
  figures: FigureRow[];
}

export async function runScaleFigure(ctx: {
  stack: BenchStack;
  api: ApiClient;
  profile: BenchProfile;
  progress: Progress;
}): Promise<ScaleResult> {
  const { stack, progress } = ctx;
  const p = ctx.profile.scale;
  const limits: ScaleLimits = {
    judges: p.judges,
    judgeRounds: p.judgeRounds,
    baselineCalls: p.baselineCalls,
    baselineLimitSeconds: p.baselineLimitSeconds,
  };
  const arenaSettings = loadConfig(stack.env).arena;
  // Its own connections: seeding statements run for minutes, and the old query is cancelled by timeout.
  const pool = new Pool({ connectionString: stack.databaseUrl, max: 2 });
  pool.on('error', () => undefined);
  const orm = await MikroORM.init(ormConfig(stack.databaseUrl, { pool: { min: 0, max: 2 } }));
  const steps: ScaleStep[] = [];
  let refit: RefitOutcome | undefined;
  try {
    progress.log(`scale: seeding ${p.agents} agents of ${p.owners} owners and ${p.prompts} pool prompts`);
    const arena = await seedScaleArena(pool, p);
    let baselineStopped: string | undefined;
    const task = progress.task('scale', p.answerSteps.length);
    for (const [i, answers] of p.answerSteps.entries()) {
      progress.log(`scale: growing to ${answers} main answers, their pairs and ${answers} votes`);
      const seedStarted = performance.now();
      await growScaleArena(pool, arena, answers);
      const seedSeconds = (performance.now() - seedStarted) / 1000;
      const { rows } = await pool.query<{ n: number }>('select count(*)::int as n from arena_pairs');
      const pairs = rows[0]?.n ?? 0;

      progress.log(
        `scale: ${answers} answers (seeded in ${seedSeconds.toFixed(0)} s): one judge, then ${p.judges}, over HTTP`,
      );
      const alone = await runJudges(ctx.api, 1, p.judgeRounds);
      const judged = await runJudges(ctx.api, p.judges, p.judgeRounds);

      let baseline: ScaleStep['baseline'];
      if (baselineStopped) baseline = { ran: false, reason: baselineStopped };
      else {
        progress.log(`scale: ${answers} answers: the old judge/next query, up to ${p.baselineCalls} calls`);
        // A judge with no battles and no agents: every pair is theirs to judge, as for a fresh judge.
        const judgeId = (await ctx.api.register()).userId;
        const calls: OldQueryCall[] = [];
        for (let c = 0; c < p.baselineCalls; c++) {
          const call = await oldLeastJudgedPair(pool, judgeId, p.baselineLimitSeconds * 1000);
          calls.push(call);
          if (call.timedOut) break;
        }
        baseline = baselineFromCalls(calls, p.baselineLimitSeconds);
        if (baseline.passedLimit)
          baselineStopped = `a call passed ${p.baselineLimitSeconds} s at ${answers} answers, so none is run at larger sizes`;
      }

      progress.log(`scale: ${answers} answers: a dispatch step for ${p.dueAgents} due agents`);
      const step = await measureDispatchStep(orm, pool, arenaSettings, p.dueAgents, String(answers));
      steps.push({
        answers,
        votes: arena.votes,
        pairs,
        seedSeconds,
        next: summarize(judged.next),
        vote: summarize(judged.vote),
        alone: { next: summarize(alone.next), vote: summarize(alone.vote) },
        empty: judged.empty + alone.empty,
        errors: judged.errors + alone.errors,
        firstError: alone.firstError ?? judged.firstError,
        baseline,
        dispatch: {
          sessions: step.sessions,
          batches: step.batches,
          batchSize: step.batchSize,
          totalMs: step.totalMs,
          msPer1000: dispatchMsPer1000(step.totalMs, step.sessions),
        },
      });
      const s = steps.at(-1)!;
      progress.log(
        `scale: ${answers} answers: judge/next p50 ${s.next.p50.toFixed(1)} / p99 ${s.next.p99.toFixed(1)} ms (alone ${s.alone.next.p50.toFixed(1)} / ${s.alone.next.p99.toFixed(1)}), ` +
          `vote p99 ${s.vote.p99.toFixed(0)} ms (alone ${s.alone.vote.p99.toFixed(0)}), ` +
          `old query ${s.baseline.ran ? `p50 ${s.baseline.summary.p50.toFixed(0)} ms${s.baseline.passedLimit ? ' (passed the limit)' : ''}` : 'not run'}, ` +
          `dispatch ${s.dispatch.msPer1000.toFixed(0)} ms per 1,000`,
      );
      task.update(i + 1);
    }
    task.done();

    progress.log(`scale: the leaderboard refresh over ${arena.votes} votes (at most ${p.refitTimeoutSeconds} s)`);
    refit = await measureRefit(
      stack,
      { votes: arena.votes, agents: p.agents },
      { timeoutSeconds: p.refitTimeoutSeconds, maxRssMb: p.refitMaxRssMb },
    );
    progress.log(
      refit.finished
        ? `scale: refresh ${(refit.refreshMs / 1000).toFixed(1)} s (${refit.boards} boards), peak RSS ${refit.maxRssMb.toFixed(0)} MB`
        : `scale: refresh ${refit.reason}`,
    );
  } finally {
    await orm.close();
    await pool.end();
  }
  return {
    agents: p.agents,
    owners: p.owners,
    prompts: p.prompts,
    limits,
    steps,
    refit,
    chart: scaleChart(steps, limits),
    figures: scaleFigures(steps, refit, limits),
  };
}
