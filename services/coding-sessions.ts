/**
 * Coding sandbox sessions: an owner starts one (a task, or a benchmark run of every active task),
 * and the agent works it step by step with the session's token or its own secret. Each step is
 * written as a row, then run by the session's workflow on the worker that holds the workspace.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { isAgentActive } from '../domain/agent-state';
import { hashToken, looksLikeSessionToken, newSessionNonce } from '../domain/credentials';
import { ArenaError, notFound } from '../domain/errors';
import { CODING_CATEGORY, parseSessionPublicId } from '../domain/sessions';
import type { Agent } from '../infra/db/entities/agent.entity';
import { Prompt } from '../infra/db/entities/prompt.entity';
import type { CodingStepKind } from '../infra/db/entities/coding-step.entity';
import {
  addCodingSession,
  latestBenchmarkRun,
  addCodingStep,
  codingSessionByTokenHash,
  dropCodingStep,
  findCodingSession,
  findCodingStep,
  startBenchmarkRun,
  type CodingSessionRow,
  type CodingStepRow,
} from '../infra/db/repositories/coding.repository';
import { activeTasks, findCodingTask, pickActiveTask } from '../infra/db/repositories/coding-task.repository';
import { addSession, closeUnstartedSessions } from '../infra/db/repositories/session.repository';
import { findSession, type SessionRow } from '../infra/db/repositories/session-read.repository';
import { codingRefusals, SANDBOX_BUSY, STEP_CAP_REACHED, type CodingScore } from '../workflows/contracts';
import {
  runStepOfSession,
  startCodingSessionWorkflow,
  submitCodingSession,
  type WorkflowDeps,
} from './workflow-client';

export const CODING_DEADLINE = { default: 1_800, min: 60, max: 3_600 } as const;

/** What a step refused for want of room on its worker tells the agent to wait (Retry-After). */
const STEP_RETRY_AFTER_SECONDS = 5;

export interface CodingDeps {
  workflows: WorkflowDeps;
  /** Steps a new session may take (ARENA_CODING_MAX_STEPS). */
  maxSteps: number;
}

/** What the agent is told besides the task's statement: how to work the session. */
function codingPrompt(title: string, statement: string, maxSteps: number): string {
  const text = statement.trim();
  return [
    ...(text.startsWith('#') ? [] : [`# ${title}`, '']),
    text,
    '',
    '---',
    'You work in a sandboxed copy of the repository through the session API in the `sandbox` object of this',
    'prompt (with `Authorization: Bearer <token>`): `POST exec` runs a command in the workspace, `GET files?path=`',
    'reads a file or lists a folder, `PUT files?path=` writes a file, and `POST submit` runs the hidden tests and',
    `ends the session. You have at most ${maxSteps} steps and until the deadline.`,
  ].join('\n');
}

function assertCanStart(agent: Agent): void {
  if (agent.deactivated) throw new ArenaError('conflict', 'agent is deactivated');
  if (!isAgentActive(agent))
    throw new ArenaError(
      'conflict',
      `agent is not active: its last ping failed (${agent.pingError}); fix the webhook and retest`,
    );
}

interface OpenSession {
  task: { id: string; title: string; statement: string };
  deadlineSeconds: number;
  maxSteps: number;
  benchmarkRunId?: number;
  /** An operator's redelivery: the same prompt again, linked to the original (its first). */
  redelivery?: { prompt: Prompt; rootId: number; rootPublicId: string };
}

/** Creates one coding session for a task and starts its workflow; the pending session's id comes back. */
async function openCodingSession(
  em: EntityManager,
  workflows: WorkflowDeps,
  agent: Agent,
  open: OpenSession,
  log: Pick<FastifyBaseLogger, 'error'>,
): Promise<number> {
  const prompt =
    open.redelivery?.prompt ??
    em.create(Prompt, {
      source: 'sandbox',
      category: CODING_CATEGORY,
      text: codingPrompt(open.task.title, open.task.statement, open.maxSteps),
    });
  const session = addSession(em, {
    agent,
    kind: 'sandbox',
    prompt,
    mode: agent.mode,
    category: CODING_CATEGORY,
    deadlineSeconds: open.deadlineSeconds,
    ...(open.redelivery ? { redeliveryOf: open.redelivery.rootId } : {}),
  });
  await em.flush();
  await addCodingSession(em, {
    sessionId: session.id,
    taskId: open.task.id,
    // The token itself is made where the key is: the worker, once the workspace is ready.
    tokenNonce: newSessionNonce(),
    maxSteps: open.maxSteps,
    expiresAt: new Date(session.createdAt.getTime() + open.deadlineSeconds * 1000),
    benchmarkRunId: open.benchmarkRunId ?? null,
  });
  try {
    await startCodingSessionWorkflow(workflows, {
      sessionId: session.id,
      agentId: agent.id,
      kind: 'sandbox',
      mode: agent.mode,
      category: CODING_CATEGORY,
      deadlineSeconds: open.deadlineSeconds,
      taskId: open.task.id,
      maxSteps: open.maxSteps,
      ...(open.redelivery ? { redeliveryOf: open.redelivery.rootPublicId } : {}),
    });
  } catch (err) {
    await closeUnstartedSessions(em, [session], 'the delivery could not be started');
    log.error({ err, sessionId: session.id }, 'could not start a coding session');
    throw new ArenaError('unavailable', 'the delivery service is unavailable; try again shortly', 5);
  }
  return session.id;
}

/**
 * An operator's redelivery of a coding session that ended: a new session on the same task, prompt,
 * deadline and step cap, with a workspace and token of its own, linked to the original.
 */
export async function redeliverCodingSession(
  em: EntityManager,
  workflows: WorkflowDeps,
  original: { id: number; agent: Agent; prompt: Prompt; deadlineSeconds: number },
  root: { id: number; publicId: string },
): Promise<number> {
  const coding = await findCodingSession(em, original.id);
  const task = coding ? await findCodingTask(em, coding.task_id) : undefined;
  if (!coding || !task) throw notFound(`coding session sandbox-${original.id}`);
  return openCodingSession(
    em,
    workflows,
    original.agent,
    {
      task,
      deadlineSeconds: original.deadlineSeconds,
      maxSteps: coding.max_steps,
      redelivery: { prompt: original.prompt, rootId: root.id, rootPublicId: root.publicId },
    },
    { error: () => undefined },
  );
}

/** An owner's coding session on one task (`random`: any active one). */
export async function startCodingTask(
  em: EntityManager,
  deps: CodingDeps,
  agent: Agent,
  request: { task: string; deadline_seconds?: number },
  log: FastifyBaseLogger,
): Promise<SessionRow> {
  assertCanStart(agent);
  const task = await pickActiveTask(em, request.task);
  if (!task) {
    if (request.task === 'random') throw new ArenaError('conflict', 'no coding task is active');
    throw notFound(`coding task ${request.task}`);
  }
  const id = await openCodingSession(
    em,
    deps.workflows,
    agent,
    { task, deadlineSeconds: request.deadline_seconds ?? CODING_DEADLINE.default, maxSteps: deps.maxSteps },
    log,
  );
  return (await findSession(em, agent.id, id))!;
}

/** A benchmark run: one session per active task; one run at a time per agent. */
export async function startBenchmark(
  em: EntityManager,
  deps: CodingDeps,
  agent: Agent,
  request: { deadline_seconds?: number },
  log: FastifyBaseLogger,
): Promise<{ run_id: number; sessions: SessionRow[] }> {
  assertCanStart(agent);
  const tasks = await activeTasks(em);
  if (tasks.length === 0) throw new ArenaError('conflict', 'no coding task is active');
  const runId = await startBenchmarkRun(em, agent.id, tasks.length);
  if (runId === undefined) throw new ArenaError('conflict', 'this agent already has a benchmark run in progress');
  const sessions: SessionRow[] = [];
  for (const task of tasks) {
    const id = await openCodingSession(
      em,
      deps.workflows,
      agent,
      {
        task,
        deadlineSeconds: request.deadline_seconds ?? CODING_DEADLINE.default,
        maxSteps: deps.maxSteps,
        benchmarkRunId: runId,
      },
      log,
    );
    sessions.push((await findSession(em, agent.id, id))!);
  }
  return { run_id: runId, sessions };
}

/**
 * The session a step is for, if the caller may work it: the session's own token, or the agent's
 * secret. Anything else about someone else's session is 404, as for pull work.
 */
export async function authorizedCodingSession(
  em: EntityManager,
  agentId: number,
  publicId: string,
  credentials: { bearer?: string; agentSecretOk: () => Promise<boolean> },
): Promise<CodingSessionRow> {
  const parsed = parseSessionPublicId(publicId);
  const row = parsed?.kind === 'sandbox' ? await findCodingSession(em, parsed.id) : undefined;
  if (!row || row.agent_id !== agentId) throw notFound('coding session');
  if (credentials.bearer !== undefined) {
    if (!looksLikeSessionToken(credentials.bearer)) throw new ArenaError('unauthenticated', 'invalid session token');
    const byToken = await codingSessionByTokenHash(em, hashToken(credentials.bearer));
    if (!byToken) throw new ArenaError('unauthenticated', 'invalid session token');
    if (byToken.session_id !== row.session_id) throw new ArenaError('forbidden', 'this token is for another session');
    return row;
  }
  if (await credentials.agentSecretOk()) return row;
  throw new ArenaError('unauthenticated', 'a session token (Authorization: Bearer) or X-Arena-Secret is required');
}

function assertOpen(row: CodingSessionRow): void {
  if (row.status !== 'pending' && row.status !== 'running')
    throw new ArenaError('conflict', codingRefusals.ended(row.status));
  // The workflow refuses it as well; this answers without asking it.
  if (new Date(row.expires_at).getTime() <= Date.now()) throw new ArenaError('conflict', codingRefusals.deadline);
}

/** Runs one step through the session's workflow and answers its recorded result. */
export async function runCodingStep(
  em: EntityManager,
  workflows: WorkflowDeps,
  row: CodingSessionRow,
  kind: Exclude<CodingStepKind, 'submit'>,
  request: Record<string, unknown>,
): Promise<CodingStepRow> {
  assertOpen(row);
  const stepId = await addCodingStep(em, row.session_id, kind, request);
  const steered = await runStepOfSession(workflows, row.session_id, stepId);
  if (steered.kind !== 'done') {
    await dropCodingStep(em, stepId);
    if (steered.kind === 'refused') {
      if (steered.type === STEP_CAP_REACHED) throw new ArenaError('rate_limited', steered.reason);
      if (steered.type === SANDBOX_BUSY) throw new ArenaError('unavailable', steered.reason, STEP_RETRY_AFTER_SECONDS);
      throw new ArenaError('conflict', steered.reason);
    }
    const after = await findCodingSession(em, row.session_id);
    throw new ArenaError('conflict', codingRefusals.ended(after?.status ?? 'ended'));
  }
  const step = await findCodingStep(em, stepId);
  if (!step?.result) throw new ArenaError('conflict', codingRefusals.lost);
  return step;
}

/** Ends the session: the hidden tests run and the score comes back. */
export async function scoreCodingSession(
  em: EntityManager,
  workflows: WorkflowDeps,
  row: CodingSessionRow,
): Promise<CodingScore> {
  assertOpen(row);
  const steered = await submitCodingSession(workflows, row.session_id);
  if (steered.kind === 'done') return steered.value;
  if (steered.kind === 'refused') throw new ArenaError('conflict', steered.reason);
  const after = await findCodingSession(em, row.session_id);
  throw new ArenaError('conflict', codingRefusals.ended(after?.status ?? 'ended'));
}

/** The active tasks an owner may pick from (the website's form), by id. */
export async function codingTaskChoices(em: EntityManager): Promise<Array<{ id: string; title: string }>> {
  return (await activeTasks(em)).map(({ id, title }) => ({ id, title }));
}

/** An agent's latest benchmark run, as its owner's page shows it. */
export async function benchmarkProgressOf(
  em: EntityManager,
  agentId: number,
): Promise<{ tasks: number; ended: number; passed: number; running: boolean } | null> {
  const run = await latestBenchmarkRun(em, agentId);
  return run ? { tasks: run.tasks, ended: run.ended, passed: run.passed, running: run.finished_at === null } : null;
}
