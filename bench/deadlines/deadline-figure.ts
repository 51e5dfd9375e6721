/**
 * Figure 3, deadlines: sandbox deliveries to push agents that never answer, each with a short
 * deadline; how far from the deadline each was recorded, counted from the moment its prompt left
 * (the agent's arrival, a little after the POST was sent, so the figure never flatters an early
 * end), against the engine's own timers (a workflow that sleeps the same time, then runs one
 * activity) started at the same rate.
 */
import type { Pool } from 'pg';
import type { BenchProfile } from '../config';
import { sessionNumber, type ApiClient } from '../lib/api-client';
import { sessionCompletions } from '../lib/db';
import { paced } from '../lib/pacer';
import { round, summarize, type Summary } from '../lib/stats';
import { startEngineWorkflow, type EngineBaseline } from '../engine/engine';
import { startCpuMeter } from '../lib/cpu';
import { figure, type FigureRow } from '../report/model';
import type { Progress } from '../report/progress';
import type { BenchStack } from '../stack/stack';
import type { Fleet } from '../push/fleet';
import { PROMPT } from '../push/systems';

export interface DeadlineResult {
  deliveries: number;
  rate: number;
  deadlineSeconds: number;
  /** |recorded - (prompt left + deadline)|, ms. */
  arena: Summary;
  /** completed_at - prompt left - deadline, signed: late is positive, early negative. */
  arenaSigned: Summary;
  /** completed_at - created_at - deadline, signed. */
  arenaFromCreated: Summary;
  /** From created_at to the prompt leaving (the agent's arrival). */
  createdToLeft: Summary;
  statuses: Record<string, number>;
  /** |activity ran - (start + timer)|, ms. */
  engine: Summary;
  engineSigned: Summary;
  cpu: Record<string, number>;
  figures: FigureRow[];
}

/**
 * `rate` is what the deliveries are offered at: the figure is about timers, so it runs below what
 * the stack sustains (main passes half the push figure's sustained rate), or the backlog of a
 * saturated engine would be measured instead.
 */
export async function runDeadlineFigure(ctx: {
  stack: BenchStack;
  api: ApiClient;
  key: string;
  pool: Pool;
  engine: EngineBaseline;
  fleet: Fleet;
  rate: number;
  profile: BenchProfile;
  progress: Progress;
}): Promise<DeadlineResult> {
  const { stack, progress, rate } = ctx;
  const d = ctx.profile.deadlines;
  const farm = ctx.fleet.farm;
  const agents = ctx.fleet.silent;
  {
    progress.log(
      `deadlines: ${d.deliveries} deliveries at ${rate}/s to ${agents.length} agents that never answer, ${d.deadlineSeconds} s deadlines`,
    );

    const task = progress.task(`arena deadlines`, d.deliveries * 2);
    const meter = startCpuMeter(() => ({ ...stack.pids(), farm: farm.child.pid }));
    const sent = await paced(
      rate,
      d.deliveries,
      (i) => ctx.api.sandbox(ctx.key, agents[i % agents.length]!, PROMPT, d.deadlineSeconds),
      (n) => task.update(n),
    );
    const failed = sent.find((s) => s.error);
    if (failed) throw new Error(`a sandbox delivery could not be started: ${failed.error}`);
    const ids = sent.map((s) => sessionNumber(s.value!.id));
    await sessionCompletions(ctx.pool, ids, 60_000 + d.deadlineSeconds * 1000, (n) => task.update(d.deliveries + n));
    const cpu = meter.stop().percent;
    task.done();
    const { rows } = await ctx.pool.query<{
      id: number;
      status: string;
      created_ms: number;
      completed_ms: number | null;
    }>(
      `select id, status, (extract(epoch from created_at) * 1000)::float8 as created_ms,
         (extract(epoch from completed_at) * 1000)::float8 as completed_ms
       from sessions where id = any($1::int[])`,
      [ids],
    );
    const statuses: Record<string, number> = {};
    for (const r of rows) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    const deadlineMs = d.deadlineSeconds * 1000;
    const leftAt = (id: number) => farm.arrivals.get(`sandbox-${id}`) ?? NaN;
    const arenaSigned = rows.map((r) => (r.completed_ms ?? NaN) - leftAt(r.id) - deadlineMs);
    const arenaFromCreated = rows.map((r) => (r.completed_ms ?? NaN) - r.created_ms - deadlineMs);
    const createdToLeft = rows.map((r) => leftAt(r.id) - r.created_ms);

    const engineTask = progress.task(`engine timers`, d.deliveries * 2);
    const stamp = Date.now();
    const engineSent = await paced(
      rate,
      d.deliveries,
      async (i) => {
        const id = `timer-${stamp}-${i}`;
        await startEngineWorkflow(stack.temporal, 'timerThenNoop', id, [id, d.deadlineSeconds * 1000]);
        return id;
      },
      (n) => engineTask.update(n),
    );
    const until = Date.now() + 60_000 + d.deadlineSeconds * 1000;
    const engineIds = engineSent.filter((s) => s.value).map((s) => [s.value!, s.sentAt] as const);
    while (Date.now() < until && engineIds.some(([id]) => !ctx.engine.arrivals.has(id))) {
      engineTask.update(d.deliveries + engineIds.filter(([id]) => ctx.engine.arrivals.has(id)).length);
      await new Promise((r) => setTimeout(r, 100));
    }
    engineTask.done();
    const engineSigned = engineIds.map(
      ([id, sentAt]) => (ctx.engine.arrivals.get(id) ?? NaN) - sentAt - d.deadlineSeconds * 1000,
    );

    const arena = summarize(arenaSigned.map(Math.abs));
    const engine = summarize(engineSigned.map(Math.abs));
    progress.log(
      `deadlines: arena p50 ${arena.p50.toFixed(0)} ms p99 ${arena.p99.toFixed(0)} ms; engine timers p50 ${engine.p50.toFixed(0)} ms p99 ${engine.p99.toFixed(0)} ms`,
    );
    const group = 'Deadlines';
    const note = `${d.deliveries} at ${rate}/s, ${d.deadlineSeconds} s deadlines, from the moment the prompt left`;
    const signed = summarize(arenaSigned);
    const engineSignedSummary = summarize(engineSigned);
    return {
      deliveries: d.deliveries,
      rate,
      deadlineSeconds: d.deadlineSeconds,
      arena,
      arenaSigned: signed,
      arenaFromCreated: summarize(arenaFromCreated),
      createdToLeft: summarize(createdToLeft),
      statuses,
      engine,
      engineSigned: engineSignedSummary,
      cpu,
      figures: [
        figure({
          group,
          name: 'recorded - deadline, signed p1 (negative: early)',
          unit: 'ms',
          value: round(signed.p1),
          baselineName: 'engine timer + activity',
          baseline: round(engineSignedSummary.p1),
          better: 'higher',
          target: '>= 0 (never early)',
          met: signed.p1 >= 0,
          note: `${note}; min ${signed.min.toFixed(0)} ms`,
        }),
        figure({
          group,
          name: 'recorded - deadline, signed p50',
          unit: 'ms',
          value: round(signed.p50),
          baselineName: 'engine timer + activity',
          baseline: round(engineSignedSummary.p50),
          better: 'lower',
          note,
        }),
        figure({
          group,
          name: 'recorded - deadline, signed p99 (late)',
          unit: 'ms',
          value: round(signed.p99),
          baselineName: 'engine timer + activity',
          baseline: round(engineSignedSummary.p99),
          better: 'lower',
          target: '<= 1.5x the engine',
          met: signed.p99 <= 1.5 * engineSignedSummary.p99,
          note,
        }),
      ],
    };
  }
}
