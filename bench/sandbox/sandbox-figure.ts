/**
 * Figure 6, sandbox: a coding session's step round trip (the agent's `exec` request accepted by the
 * API → its result returned: the update through the session's workflow, the activity on the
 * worker's own queue, the isolated command, the result row) against the same command run isolated
 * directly (`runIsolated`: prlimit, setpriv and bwrap, the same spawn the worker makes) in this
 * process, in the same run. Then many sessions at once on the stack's worker, each step against the
 * solo figure.
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
import { loadConfig } from '../../infra/config';
import { runIsolated } from '../../infra/sandbox/isolation';
import { prepareWorkspace, removeWorkspace } from '../../infra/sandbox/workspaces';

/** The command each step runs: a process start and a little output, as an agent's `ls` or `cat`. */
const STEP_COMMAND = ['sh', '-c', 'echo step'];

export interface SandboxResult {
  steps: number;
  sessions: number;
  bare: Summary;
  solo: Summary;
  concurrent: Summary;
  figures: FigureRow[];
}

interface Session {
  api: string;
  token: string;
}

/** Starts a coding session for a fresh pull agent and takes its work item, as a runner would. */
async function openSession(api: ApiClient, key: string): Promise<Session> {
  const { body: agent } = await api.request<{ id: number; webhook_secret: string }>('POST', '/api/agents', {
    key,
    body: { name: `bench-coder-${Math.random().toString(36).slice(2, 10)}`, mode: 'pull' },
  });
  const { status, body: started } = await api.request<{ id: string; detail?: string }>(
    'POST',
    `/api/agents/${agent.id}/sandbox`,
    { key, body: { task: 'python/leap-year', deadline_seconds: 3600 } },
  );
  if (status !== 202) throw new Error(`a coding session could not be started: ${started.detail ?? status}`);
  for (let i = 0; i < 100; i++) {
    const next = await api.request<{ work_id: string; sandbox?: { api: string; token: string } } | null>(
      'GET',
      `/api/agents/${agent.id}/work/next?wait=10`,
      { headers: { 'x-arena-secret': agent.webhook_secret } },
    );
    if (next.status === 200 && next.body?.work_id === started.id && next.body.sandbox) {
      return { api: new URL(next.body.sandbox.api).pathname, token: next.body.sandbox.token };
    }
    if (next.status === 200 && next.body)
      await api.request('POST', `/api/agents/${agent.id}/work/${next.body.work_id}/result`, {
        headers: { 'x-arena-secret': agent.webhook_secret },
        body: { response: 'bench' },
      });
  }
  throw new Error(`coding session ${started.id} was never handed out`);
}

async function timedStep(api: ApiClient, session: Session): Promise<number> {
  const started = performance.now();
  const { status, body } = await api.request<{ exit_code?: number; detail?: string }>('POST', `${session.api}/exec`, {
    key: session.token,
    body: { command: STEP_COMMAND },
  });
  if (status !== 200 || body.exit_code !== 0) throw new Error(`a step failed: ${status} ${body.detail ?? ''}`);
  return performance.now() - started;
}

export async function runSandboxFigure(ctx: {
  stack: BenchStack;
  api: ApiClient;
  key: string;
  profile: BenchProfile;
  progress: Progress;
}): Promise<SandboxResult> {
  const p = ctx.profile.sandbox;
  const settings = loadConfig(ctx.stack.env).sandbox;

  ctx.progress.log(`sandbox: ${p.steps} bare isolated spawns of the step's command`);
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-bench-sandbox-'));
  await fs.chmod(scratch, 0o711);
  const bareSettings = { ...settings, dir: path.join(scratch, 'workspaces') };
  const workspace = await prepareWorkspace(1_999_999_999, [], bareSettings);
  const bare: number[] = [];
  try {
    for (let i = 0; i < p.steps; i++) {
      const started = performance.now();
      const result = await runIsolated({
        workspace,
        command: STEP_COMMAND,
        timeoutSeconds: 60,
        limits: settings.limits,
      });
      if (result.exit_code !== 0) throw new Error(`the bare isolated command failed: ${result.stderr}`);
      bare.push(performance.now() - started);
    }
  } finally {
    await removeWorkspace(workspace);
    await fs.rm(scratch, { recursive: true, force: true });
  }

  ctx.progress.log(`sandbox: one session, ${p.steps} exec steps one after another`);
  const solo: number[] = [];
  const first = await openSession(ctx.api, ctx.key);
  for (let i = 0; i < p.steps; i++) solo.push(await timedStep(ctx.api, first));

  ctx.progress.log(`sandbox: ${p.sessions} sessions at once, ${p.concurrentSteps} steps each`);
  const sessions = await Promise.all(Array.from({ length: p.sessions }, () => openSession(ctx.api, ctx.key)));
  const concurrent: number[] = [];
  await Promise.all(
    sessions.map(async (s) => {
      for (let i = 0; i < p.concurrentSteps; i++) concurrent.push(await timedStep(ctx.api, s));
    }),
  );

  const b = summarize(bare);
  const s = summarize(solo);
  const c = summarize(concurrent);
  const target = 1.5 * b.p50 + 20;
  const figures = [
    figure({
      group: 'Sandbox',
      name: 'step round trip p50 (exec, one session)',
      unit: 'ms',
      value: Math.round(s.p50 * 10) / 10,
      baselineName: 'the same command isolated directly (prlimit, setpriv, bwrap)',
      baseline: Math.round(b.p50 * 10) / 10,
      better: 'lower',
      target: `<= 1.5x + 20 ms (${Math.round(target)} ms)`,
      met: s.p50 <= target,
      note: `p99 ${s.p99.toFixed(0)} ms against ${b.p99.toFixed(0)} ms`,
    }),
    figure({
      group: 'Sandbox',
      name: `step round trip, ${p.sessions} sessions at once on one worker, max`,
      unit: 'ms',
      value: Math.round(c.max),
      baselineName: 'one session alone, p50',
      baseline: Math.round(s.p50),
      better: 'lower',
      target: '<= 2x its solo time (two workers)',
      met: c.max <= 2 * s.p50,
      note: `p50 ${c.p50.toFixed(0)} ms, p99 ${c.p99.toFixed(0)} ms; one worker, not two`,
    }),
  ];
  ctx.progress.log(
    `sandbox: bare p50 ${b.p50.toFixed(1)} ms, step p50 ${s.p50.toFixed(1)} ms; ${p.sessions} at once p50 ${c.p50.toFixed(0)} / max ${c.max.toFixed(0)} ms`,
  );
  return { steps: p.steps, sessions: p.sessions, bare: b, solo: s, concurrent: c, figures };
}
