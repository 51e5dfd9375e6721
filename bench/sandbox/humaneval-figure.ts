/**
 * Figure 7, HumanEval: the suite imported as an operator imports it (`arena tasks import humaneval`,
 * every problem validated in the sandbox), then a scripted agent that writes each problem's
 * reference solution through the session API: a coding session per problem, four at a time (the
 * account's cap), each opened, taken as a pull agent takes it, written, submitted and scored.
 * Against the harness alone on the same problems in the same run: one scoring in the sandbox
 * (clean room, harness, read-only bubblewrap) with nothing around it, four at a time.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import type { BenchProfile } from '../config';
import type { ApiClient } from '../lib/api-client';
import { summarize, type Summary } from '../lib/stats';
import { figure, type FigureRow } from '../report/model';
import type { Progress } from '../report/progress';
import type { BenchStack } from '../stack/stack';
import { main as arenaCommand } from '../../cli/main';
import { humanEvalTask, type HumanEvalTask } from '../../domain/sandbox/humaneval';
import { loadConfig } from '../../infra/config';
import { humanEvalDataFile, readHumanEvalFile } from '../../infra/sandbox/humaneval-data';
import { scoreAs } from '../../infra/sandbox/task-validation';
import { removeJudgesScratch } from '../../infra/sandbox/clean-room';

export interface HumanEvalResult {
  problems: number;
  concurrency: number;
  importSeconds: number;
  /** Opened, taken, written, submitted and scored, per session. */
  session: Summary;
  submitToScore: Summary;
  /** One scoring in the sandbox with nothing around it. */
  harness: Summary;
  sessionsPerMinute: number;
  harnessPerMinute: number;
  figures: FigureRow[];
}

type Agent = { id: number; webhook_secret: string };

/** Runs `work` on every item, `concurrency` at a time, each worker with its own state. */
async function pool<T, S>(
  items: readonly T[],
  concurrency: number,
  state: () => Promise<S>,
  work: (item: T, s: S) => Promise<void>,
) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const own = await state();
      while (next < items.length) await work(items[next++]!, own);
    }),
  );
}

/** One problem through the arena: the session opened, its work item taken, the reference written, submitted. */
async function solveThroughArena(
  api: ApiClient,
  key: string,
  agent: Agent,
  task: HumanEvalTask,
): Promise<{ session: number; submit: number }> {
  const started = performance.now();
  const secret = { 'x-arena-secret': agent.webhook_secret };
  const opened = await api.request<{ id: string; detail?: string }>('POST', `/api/agents/${agent.id}/sandbox`, {
    key,
    body: { task: task.id, deadline_seconds: 3600 },
  });
  if (opened.status !== 202)
    throw new Error(`${task.id}: the session could not start: ${opened.body.detail ?? opened.status}`);
  let sandbox: { api: string; token: string } | undefined;
  for (let i = 0; i < 100 && !sandbox; i++) {
    const next = await api.request<{ work_id: string; sandbox?: { api: string; token: string } } | null>(
      'GET',
      `/api/agents/${agent.id}/work/next?wait=10`,
      { headers: secret },
    );
    if (next.status !== 200 || !next.body) continue;
    if (next.body.work_id === opened.body.id && next.body.sandbox) sandbox = next.body.sandbox;
    // A gym prompt of the new agent comes first: answered on the way, as a runner would.
    else
      await api.request('POST', `/api/agents/${agent.id}/work/${next.body.work_id}/result`, {
        headers: secret,
        body: { response: 'bench' },
      });
  }
  if (!sandbox) throw new Error(`${task.id}: the session was never handed out`);
  const base = new URL(sandbox.api).pathname;
  const written = await api.request<{ detail?: string }>('PUT', `${base}/files?path=solution.py`, {
    key: sandbox.token,
    body: { content: task.reference[0]!.content },
  });
  if (written.status !== 204) throw new Error(`${task.id}: writing the solution failed: ${written.status}`);
  const submitted = performance.now();
  const score = await api.request<{ status?: string; detail?: string }>('POST', `${base}/submit`, {
    key: sandbox.token,
  });
  if (score.status !== 200 || score.body.status !== 'passed')
    throw new Error(`${task.id}: the reference solution did not pass: ${score.status} ${JSON.stringify(score.body)}`);
  const ended = performance.now();
  return { session: ended - started, submit: ended - submitted };
}

export async function runHumanEvalFigure(ctx: {
  stack: BenchStack;
  api: ApiClient;
  key: string;
  profile: BenchProfile;
  progress: Progress;
}): Promise<HumanEvalResult> {
  const { problems, concurrency } = ctx.profile.humaneval;
  const config = loadConfig(ctx.stack.env);

  ctx.progress.log('humaneval: arena tasks import humaneval (every problem validated in the sandbox)');
  const importStarted = performance.now();
  const printed: string[] = [];
  const code = await arenaCommand(['tasks', 'import', 'humaneval'], (line) => printed.push(line), ctx.stack.env);
  if (code !== 0) throw new Error(`the import failed:\n${printed.slice(-5).join('\n')}`);
  const importSeconds = (performance.now() - importStarted) / 1000;
  ctx.progress.log(`humaneval: ${printed.at(-1)}`);

  const file = await humanEvalDataFile({ toolDir: path.join(config.dataDir, 'tools') });
  const tasks = (await readHumanEvalFile(file))
    .flatMap((line) => ('record' in line ? [humanEvalTask(line.record)] : []))
    .flatMap((built) => ('task' in built ? [built.task] : []))
    .slice(0, problems);

  // The harness alone, in a sandbox folder of its own: the scoring a session's submit ends with.
  ctx.progress.log(`humaneval: the harness alone on ${tasks.length} problems, ${concurrency} at a time`);
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-bench-humaneval-'));
  await fs.chmod(scratch, 0o711);
  const harness: number[] = [];
  let harnessSeconds: number;
  try {
    const started = performance.now();
    await pool(
      tasks,
      concurrency,
      async () => undefined,
      async (task) => {
        const t0 = performance.now();
        const score = await scoreAs(task, task.reference, { ...config.sandbox, dir: scratch });
        if (score.passed !== 1) throw new Error(`${task.id}: the reference did not pass the harness alone`);
        harness.push(performance.now() - t0);
      },
    );
    harnessSeconds = (performance.now() - started) / 1000;
  } finally {
    await removeJudgesScratch(scratch);
    await fs.rm(scratch, { recursive: true, force: true });
  }

  ctx.progress.log(`humaneval: ${tasks.length} sessions through the arena, ${concurrency} pull agents at once`);
  const sessions: number[] = [];
  const submits: number[] = [];
  const arenaStarted = performance.now();
  await pool(
    tasks,
    concurrency,
    async () =>
      (
        await ctx.api.request<Agent>('POST', '/api/agents', {
          key: ctx.key,
          body: { name: `bench-humaneval-${Math.random().toString(36).slice(2, 10)}`, mode: 'pull' },
        })
      ).body,
    async (task, agent) => {
      const timed = await solveThroughArena(ctx.api, ctx.key, agent, task);
      sessions.push(timed.session);
      submits.push(timed.submit);
    },
  );
  const arenaSeconds = (performance.now() - arenaStarted) / 1000;

  const s = summarize(sessions);
  const q = summarize(submits);
  const h = summarize(harness);
  const sessionsPerMinute = (tasks.length / arenaSeconds) * 60;
  const harnessPerMinute = (tasks.length / harnessSeconds) * 60;
  const figures = [
    figure({
      group: 'HumanEval',
      name: `the suite through the arena, ${tasks.length} problems, ${concurrency} sessions at once`,
      unit: 'sessions/min',
      value: Math.round(sessionsPerMinute),
      baselineName: `the harness alone on the same problems, ${concurrency} at a time (scorings/min)`,
      baseline: Math.round(harnessPerMinute),
      better: 'higher',
      note: `every reference passed; ${arenaSeconds.toFixed(0)} s against ${harnessSeconds.toFixed(0)} s; the import with its validation took ${importSeconds.toFixed(0)} s`,
    }),
    figure({
      group: 'HumanEval',
      name: 'submit to score p50 (stop, clean room, harness, remove)',
      unit: 'ms',
      value: Math.round(q.p50),
      baselineName: 'one scoring by the harness alone, p50',
      baseline: Math.round(h.p50),
      better: 'lower',
      note: `p99 ${q.p99.toFixed(0)} ms against ${h.p99.toFixed(0)} ms`,
    }),
    figure({
      group: 'HumanEval',
      name: "the arena's overhead per session p50 (opened, handed out, written, submitted, scored)",
      unit: 'ms',
      value: Math.round(s.p50 - h.p50),
      baselineName: 'one scoring by the harness alone, p50',
      baseline: Math.round(h.p50),
      better: 'lower',
      note: `a whole session p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms`,
    }),
  ];
  ctx.progress.log(
    `humaneval: ${sessionsPerMinute.toFixed(0)} sessions/min against ${harnessPerMinute.toFixed(0)} scorings/min alone; ` +
      `submit to score p50 ${q.p50.toFixed(0)} ms, p99 ${q.p99.toFixed(0)} ms; harness alone p50 ${h.p50.toFixed(0)} ms`,
  );
  return {
    problems: tasks.length,
    concurrency,
    importSeconds,
    session: s,
    submitToScore: q,
    harness: h,
    sessionsPerMinute: Math.round(sessionsPerMinute),
    harnessPerMinute: Math.round(harnessPerMinute),
    figures,
  };
}
