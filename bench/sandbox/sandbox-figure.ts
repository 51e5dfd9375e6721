/**
 * Figure 6, sandbox: a coding session's step round trip (the agent's `exec` request accepted by the
 * API → its result returned: the update through the session's workflow, the activity on the
 * worker's own queue, the isolated command, the result row) against the same command run isolated
 * directly (`runIsolated`: prlimit, setpriv and bwrap, the same spawn the worker makes) in this
 * process, and against the engine alone doing the same (an update whose activity runs the command on
 * a second queue), in the same run; where the step's time goes, from its workflow history. Then many
 * sessions on two workers, first at an agent's pace, then back to back, each step against the solo
 * figure.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BenchProfile } from '../config';
import type { ApiClient } from '../lib/api-client';
import { summarize, type Summary } from '../lib/stats';
import { figure, type FigureRow } from '../report/model';
import type { Progress } from '../report/progress';
import type { BenchStack } from '../stack/stack';
import { startChild, type BenchChild } from '../stack/child';
import { startEngineBaseline } from '../engine/engine';
import { ENGINE_STEP_TASK_QUEUE, ENGINE_TASK_QUEUE } from '../engine/task-queue';
import { loadConfig, type SandboxSettings } from '../../infra/config';
import { checkIsolation, probeOf, runIsolated } from '../../infra/sandbox/isolation';
import { prepareWorkspace, removeWorkspace } from '../../infra/sandbox/workspaces';
import { openSession, TASK, type Session } from './coding-session';
import { STEP_COMMAND } from './step-command';
import { stepTimeline, type StepTimeline, type TimedRequest } from './step-timeline';
import { uidRangeOf } from '../../infra/sandbox/settings';

export interface SandboxResult {
  steps: number;
  sessions: number;
  bare: Summary;
  /** The engine alone: an update running one activity on a second queue that runs the command. */
  engine: Summary;
  solo: Summary;
  /** Many sessions on two workers, each step after a think time. */
  paced: Summary;
  /** The same sessions, steps back to back: what the machine can take. */
  backToBack: Summary;
  /** Each session submitted in turn: the request until its score comes back (the session stopped, scored, removed). */
  submitToScore: Summary;
  backToBackStepsPerSecond: number;
  /** Where one session's step goes, p50 of each part. */
  timeline: StepTimeline;
  figures: FigureRow[];
}

/** Submits the session and waits for its score: the hidden tests run, the workspace goes. */
async function timedSubmit(api: ApiClient, session: Session): Promise<number> {
  const started = performance.now();
  const { status, body } = await api.request<{ tests_total?: number; detail?: string }>(
    'POST',
    `${session.api}/submit`,
    {
      key: session.token,
    },
  );
  if (status !== 200 || !body.tests_total) throw new Error(`a submit failed: ${status} ${body.detail ?? ''}`);
  return performance.now() - started;
}

async function timedStep(api: ApiClient, session: Session, requests?: TimedRequest[]): Promise<number> {
  const sentAt = Date.now();
  const started = performance.now();
  const { status, body } = await api.request<{ exit_code?: number; detail?: string }>('POST', `${session.api}/exec`, {
    key: session.token,
    body: { command: STEP_COMMAND },
  });
  if (status !== 200 || body.exit_code !== 0) throw new Error(`a step failed: ${status} ${body.detail ?? ''}`);
  requests?.push({ sentAt, answeredAt: Date.now() });
  return performance.now() - started;
}

/** The engine's floor for a step: an update whose handler runs one activity on a second queue that runs the command isolated. */
async function engineFloor(ctx: { stack: BenchStack }, sandboxDir: string, steps: number): Promise<number[]> {
  const engine = await startEngineBaseline(ctx.stack, { sandboxDir });
  const times: number[] = [];
  try {
    const handle = await ctx.stack.temporal.workflow.start('stepSession', {
      taskQueue: ENGINE_TASK_QUEUE,
      workflowId: `bench-steps-${Date.now()}`,
      args: [ENGINE_STEP_TASK_QUEUE],
    });
    for (let i = 0; i < steps; i++) {
      const started = performance.now();
      const exitCode = await handle.executeUpdate<number, []>('isolatedStep');
      if (exitCode !== 0) throw new Error(`the engine baseline's step failed with exit code ${exitCode}`);
      times.push(performance.now() - started);
    }
    await handle.signal('endSteps');
  } finally {
    await engine.stop();
  }
  return times;
}

/** The same command isolated directly in this process: the spawn the worker makes, nothing around it. */
async function bareSpawns(sandboxDir: string, settings: SandboxSettings, steps: number): Promise<number[]> {
  // The sessions' part's last uid: the arena's sessions lease from the bottom, its judges from a block above.
  const uid = settings.uidBase + uidRangeOf(settings).sessions - 1;
  const workspace = await prepareWorkspace(1_999_999_999, uid, [], { ...settings, dir: sandboxDir });
  const check = await checkIsolation(probeOf(settings));
  if (!check.ok) throw new Error(check.reason);
  const times: number[] = [];
  try {
    for (let i = 0; i < steps; i++) {
      const started = performance.now();
      const result = await runIsolated({
        workspace,
        command: STEP_COMMAND,
        timeoutSeconds: 60,
        limits: settings.limits,
      });
      if (result.exit_code !== 0) throw new Error(`the bare isolated command failed: ${result.stderr}`);
      times.push(performance.now() - started);
    }
  } finally {
    await removeWorkspace(workspace);
  }
  return times;
}

/** A second arena worker, as a second machine would run one: sessions are prepared by whichever polls first. */
async function startSecondWorker(stack: BenchStack): Promise<BenchChild> {
  const child = startChild({
    name: 'worker-2',
    script: 'bench/stack/worker-entry.ts',
    env: stack.env,
    logFile: stack.logFile('worker-2'),
    ipc: true,
  });
  await child.message((m): m is { ready: true } => typeof m === 'object' && m !== null && 'ready' in m, 120_000);
  return child;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSandboxFigure(ctx: {
  stack: BenchStack;
  api: ApiClient;
  key: string;
  profile: BenchProfile;
  progress: Progress;
}): Promise<SandboxResult> {
  const p = ctx.profile.sandbox;
  const settings = loadConfig(ctx.stack.env).sandbox;
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-bench-sandbox-'));
  await fs.chmod(scratch, 0o711);
  let bare: number[];
  let floor: number[];
  try {
    ctx.progress.log(`sandbox: ${p.steps} bare isolated spawns of the step's command`);
    bare = await bareSpawns(scratch, settings, p.steps);
    ctx.progress.log(`sandbox: ${p.steps} steps through the engine alone (update, activity on a second queue)`);
    floor = await engineFloor(ctx, scratch, p.steps);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }

  ctx.progress.log(`sandbox: one session, ${p.steps} exec steps one after another`);
  const solo: number[] = [];
  const soloRequests: TimedRequest[] = [];
  const first = await openSession(ctx.api, ctx.key);
  for (let i = 0; i < p.steps; i++) solo.push(await timedStep(ctx.api, first, soloRequests));
  const timeline = await stepTimeline(ctx.stack.temporal, first.workflowId, soloRequests);
  ctx.progress.log(`sandbox: where a step's time goes (p50 ms): ${JSON.stringify(timeline)}`);

  const second = await startSecondWorker(ctx.stack);
  const paced: number[] = [];
  const burst: number[] = [];
  const submits: number[] = [];
  let burstSeconds: number;
  try {
    const sessions = await Promise.all(Array.from({ length: p.sessions }, () => openSession(ctx.api, ctx.key)));
    ctx.progress.log(
      `sandbox: ${p.sessions} sessions on two workers, ${p.concurrentSteps} steps each, ${p.thinkMs} ms apart (an agent thinking)`,
    );
    await Promise.all(
      sessions.map(async (session, index) => {
        // Spread over one think time, as agents that started at different moments.
        await sleep((p.thinkMs * index) / p.sessions);
        for (let i = 0; i < p.concurrentSteps; i++) {
          paced.push(await timedStep(ctx.api, session));
          await sleep(p.thinkMs);
        }
      }),
    );
    ctx.progress.log(`sandbox: the same sessions, ${p.concurrentSteps} steps each back to back`);
    const burstStarted = performance.now();
    await Promise.all(
      sessions.map(async (session) => {
        for (let i = 0; i < p.concurrentSteps; i++) burst.push(await timedStep(ctx.api, session));
      }),
    );
    burstSeconds = (performance.now() - burstStarted) / 1000;
    ctx.progress.log(`sandbox: the ${p.sessions} sessions submitted one after another`);
    for (const session of [first, ...sessions]) submits.push(await timedSubmit(ctx.api, session));
  } finally {
    await second.stop(30_000);
  }

  const b = summarize(bare);
  const f = summarize(floor);
  const s = summarize(solo);
  const c = summarize(paced);
  const u = summarize(burst);
  const scored = summarize(submits);
  const target = 1.5 * b.p50 + 20;
  const stepsPerSecond = burst.length / burstSeconds;
  const figures = [
    figure({
      group: 'Sandbox',
      name: 'step round trip p50 (exec, one session)',
      unit: 'ms',
      value: round1(s.p50),
      baselineName: 'the same command isolated directly (prlimit, setpriv, bwrap)',
      baseline: round1(b.p50),
      better: 'lower',
      target: `<= 1.5x + 20 ms (${Math.round(target)} ms)`,
      met: s.p50 <= target,
      note: `p99 ${s.p99.toFixed(0)} ms against ${b.p99.toFixed(0)} ms`,
    }),
    figure({
      group: 'Sandbox',
      name: 'step round trip p50 against the engine alone',
      unit: 'ms',
      value: round1(s.p50),
      baselineName: 'an update running one activity on a second queue that runs the same command',
      baseline: round1(f.p50),
      better: 'lower',
      note: `the arena adds its API, the step's row and its result's: ${(s.p50 - f.p50).toFixed(0)} ms`,
    }),
    figure({
      group: 'Sandbox',
      name: `step round trip, ${p.sessions} sessions on two workers, a step each ${p.thinkMs} ms, max`,
      unit: 'ms',
      value: Math.round(c.max),
      baselineName: 'one session alone, p50',
      baseline: Math.round(s.p50),
      better: 'lower',
      target: '<= 2x its solo time',
      met: c.max <= 2 * s.p50,
      note: `p50 ${c.p50.toFixed(0)} ms, p99 ${c.p99.toFixed(0)} ms`,
    }),
    figure({
      group: 'Sandbox',
      name: `step round trip, ${p.sessions} sessions on two workers, steps back to back, p50`,
      unit: 'ms',
      value: Math.round(u.p50),
      baselineName: 'one session alone, p50',
      baseline: Math.round(s.p50),
      better: 'lower',
      note: `max ${u.max.toFixed(0)} ms; ${stepsPerSecond.toFixed(1)} steps/s in all`,
    }),
    figure({
      group: 'Sandbox',
      name: 'submit to score p50 (stop, clean room, harness, remove)',
      unit: 'ms',
      value: Math.round(scored.p50),
      baselineName: 'one step, p50',
      baseline: Math.round(s.p50),
      better: 'lower',
      note: `p99 ${scored.p99.toFixed(0)} ms over ${submits.length} sessions of ${TASK}`,
    }),
  ];
  ctx.progress.log(
    `sandbox: bare p50 ${b.p50.toFixed(1)} ms, engine ${f.p50.toFixed(1)} ms, step ${s.p50.toFixed(1)} ms; ` +
      `paced max ${c.max.toFixed(0)} ms; back to back p50 ${u.p50.toFixed(0)} ms, ${stepsPerSecond.toFixed(1)} steps/s; ` +
      `submit to score p50 ${scored.p50.toFixed(0)} ms, p99 ${scored.p99.toFixed(0)} ms`,
  );
  return {
    steps: p.steps,
    sessions: p.sessions,
    bare: b,
    engine: f,
    solo: s,
    paced: c,
    backToBack: u,
    submitToScore: scored,
    backToBackStepsPerSecond: round1(stepsPerSecond),
    timeline,
    figures,
  };
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
