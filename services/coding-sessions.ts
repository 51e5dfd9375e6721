/**
 * Coding sandbox sessions: an owner starts one (a task, or a benchmark run of every active task),
 * and the agent works it step by step with the session's token or its own secret. Each step is
 * written as a row, then run by the session's workflow on the worker that holds the workspace.
 */
import { ARENA_SUITE, HUMANEVAL_SUITE, type CodingSuite } from '../domain/sandbox/suites';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { assertCanTakeDelivery } from '../domain/agent-state';
import { hashToken, looksLikeCodingSessionToken, tokenMatchesHash } from '../domain/credentials';
import { findAgentCredentials } from '../infra/db/repositories/agent.repository';
import { ArenaError, notFound } from '../domain/errors';
import { parseDeliveryPublicId } from '../domain/deliveries';
import type { Agent } from '../infra/db/entities/agent.entity';
import type { Prompt } from '../infra/db/entities/prompt.entity';
import type { CodingStepKind } from '../infra/db/entities/coding-step.entity';
import type { CodingCapacity, SandboxSettings } from '../infra/config';
import {
  codingSessionByTokenHash,
  findCodingSession,
  openCodingSessionRows,
  type CodingSessionRow,
} from '../infra/db/repositories/coding.repository';
import {
  admitCodingStep,
  dropCodingStep,
  findCodingStep,
  type CodingStepRow,
} from '../infra/db/repositories/coding-step.repository';
import {
  latestBenchmarkRun,
  finishBenchmarkRun,
  startBenchmarkRun,
} from '../infra/db/repositories/benchmark-run.repository';
import { activeTasks, findCodingTask, pickActiveTask } from '../infra/db/repositories/coding-task.repository';
import { findDelivery, type DeliveryRow } from '../infra/db/repositories/delivery-read.repository';
import { codingRefusals, SANDBOX_BUSY, STEP_CAP_REACHED, type CodingScore } from '../workflows/contracts';
import {
  deliveryUnavailable,
  runStepOfCodingSession,
  startBenchmarkWorkflow,
  submitCodingSession,
  type WorkflowDeps,
} from './workflow-client';
import { ownedAgent, type OwnedAgentRef } from './agents';
import { startDeliveries } from './start-deliveries';

export const CODING_DEADLINE = { default: 1_800, min: 60, max: 3_600 } as const;

/** Attempts of each task a benchmark run makes: 1 to 5, 3 unless asked. */
export const BENCHMARK_TRIALS = { default: 3, min: 1, max: 5 } as const;

/** What a step refused for want of room on its worker tells the agent to wait (Retry-After). */
const STEP_RETRY_AFTER_SECONDS = 5;
/** What a start refused at the account's cap of live sessions tells the owner to wait. */
const SESSION_RETRY_AFTER_SECONDS = 30;

export interface CodingDeps {
  workflows: WorkflowDeps;
  /** Steps a new session may take (ARENA_CODING_MAX_STEPS). */
  maxSteps: number;
  /** How much of the sandbox one account may hold at once, and how much a worker takes on. */
  capacity: CodingCapacity;
}

/** The coding use cases' dependencies, from the sandbox's settings. */
export function codingDepsOf(
  workflows: WorkflowDeps,
  sandbox: Pick<SandboxSettings, 'maxSteps' | 'capacity'>,
): CodingDeps {
  return { workflows, maxSteps: sandbox.maxSteps, capacity: sandbox.capacity };
}

const sessionCapReached = (cap: number) =>
  new ArenaError(
    'rate_limited',
    `this account already has ${cap} coding sessions running, the most it may have at once; one must end first`,
    SESSION_RETRY_AFTER_SECONDS,
  );

const openedFor = (agent: Agent) => ({ id: agent.id, ownerId: agent.owner.id, mode: agent.mode });

/**
 * An operator's redelivery of a coding session that ended: a new session on the same task, prompt,
 * deadline and step cap, with a workspace and token of its own, linked to the original. Not held
 * to the account's cap: the operator decided.
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
  const open = { task, deadlineSeconds: original.deadlineSeconds, maxSteps: coding.max_steps };
  const written = await openCodingSessionRows(em, {
    ...open,
    agent: openedFor(original.agent),
    redelivery: { promptId: original.prompt.id, rootId: root.id },
  });
  await startDeliveries(em, workflows, [written!], {
    kind: 'codingSession',
    taskId: task.id,
    maxSteps: open.maxSteps,
    redeliveryOf: root.publicId,
  });
  return written!.id;
}

/** An owner's coding session on one task (`random`: any active one), within the account's cap of live sessions; 404 unless they own the agent. */
export async function startCodingTask(
  em: EntityManager,
  deps: CodingDeps,
  { agentId, ownerId }: OwnedAgentRef,
  request: { task: string; deadline_seconds?: number },
  log: FastifyBaseLogger,
): Promise<DeliveryRow> {
  const agent = await ownedAgent(em, agentId, ownerId);
  assertCanTakeDelivery(agent);
  const task = await pickActiveTask(em, request.task);
  if (!task) {
    if (request.task === 'random') throw new ArenaError('conflict', 'no coding task is active');
    throw notFound(`coding task ${request.task}`);
  }
  const open = { task, deadlineSeconds: request.deadline_seconds ?? CODING_DEADLINE.default, maxSteps: deps.maxSteps };
  const written = await openCodingSessionRows(em, {
    ...open,
    agent: openedFor(agent),
    sessionsPerAccount: deps.capacity.sessionsPerAccount,
  });
  if (written === undefined) throw sessionCapReached(deps.capacity.sessionsPerAccount);
  await startDeliveries(
    em,
    deps.workflows,
    [written],
    { kind: 'codingSession', taskId: task.id, maxSteps: open.maxSteps },
    log,
  );
  return (await findDelivery(em, agent.id, written.id))!;
}

/**
 * A benchmark run: every active task of a suite `trials` times, one run at a time per agent. Its
 * workflow opens the sessions as the account's cap of live sessions lets it, all tasks once before
 * any twice.
 */
/** Why a suite cannot be benchmarked: it has no active task. */
export function noActiveTask(suite: CodingSuite): string {
  return suite === HUMANEVAL_SUITE
    ? 'no task of the humaneval suite is active: an operator imports it with `arena tasks import humaneval`'
    : `no task of the ${suite} suite is active`;
}

export async function startBenchmark(
  em: EntityManager,
  deps: CodingDeps,
  agent: Agent,
  request: { deadline_seconds?: number; trials?: number; suite?: CodingSuite },
  log: FastifyBaseLogger,
): Promise<{ run_id: number; suite: CodingSuite; tasks: number; trials: number; sessions: number }> {
  assertCanTakeDelivery(agent);
  const suite = request.suite ?? ARENA_SUITE;
  const tasks = await activeTasks(em, suite);
  if (tasks.length === 0) throw new ArenaError('conflict', noActiveTask(suite));
  const trials = request.trials ?? BENCHMARK_TRIALS.default;
  const runId = await startBenchmarkRun(em, agent.id, suite, tasks.length, trials);
  if (runId === undefined) throw new ArenaError('conflict', 'this agent already has a benchmark run in progress');
  try {
    await startBenchmarkWorkflow(deps.workflows, {
      runId,
      agentId: agent.id,
      taskIds: tasks.map((task) => task.id),
      trials,
      deadlineSeconds: request.deadline_seconds ?? CODING_DEADLINE.default,
      maxSteps: deps.maxSteps,
      sessionsPerAccount: deps.capacity.sessionsPerAccount,
    });
  } catch (err) {
    await finishBenchmarkRun(em, runId);
    log.error({ err, runId }, 'could not start a benchmark run');
    throw deliveryUnavailable();
  }
  return { run_id: runId, suite, tasks: tasks.length, trials, sessions: tasks.length * trials };
}

/**
 * The session a step is for, if the caller may work it: the session's own token, or the agent's
 * secret. Anything else about someone else's session is 404, as for pull work.
 */
export async function authorizedCodingSession(
  em: EntityManager,
  agentId: number,
  publicId: string,
  credentials: { bearer?: string; agentSecret?: string },
): Promise<CodingSessionRow> {
  const parsed = parseDeliveryPublicId(publicId);
  const row = parsed?.kind === 'sandbox' ? await findCodingSession(em, parsed.id) : undefined;
  if (!row || row.agent_id !== agentId) throw notFound('coding session');
  if (credentials.bearer !== undefined) {
    if (!looksLikeCodingSessionToken(credentials.bearer))
      throw new ArenaError('unauthenticated', 'invalid session token');
    const byToken = await codingSessionByTokenHash(em, hashToken(credentials.bearer));
    if (!byToken) throw new ArenaError('unauthenticated', 'invalid session token');
    if (byToken.session_id !== row.session_id) throw new ArenaError('forbidden', 'this token is for another session');
    return row;
  }
  if (credentials.agentSecret !== undefined && (await agentSecretMatches(em, agentId, credentials.agentSecret)))
    return row;
  throw new ArenaError('unauthenticated', 'a session token (Authorization: Bearer) or X-Arena-Secret is required');
}

/** Whether `secret` is the agent's own (`X-Arena-Secret`), whatever its mode. */
async function agentSecretMatches(em: EntityManager, agentId: number, secret: string): Promise<boolean> {
  const agent = await findAgentCredentials(em, agentId);
  return agent !== undefined && tokenMatchesHash(secret, agent.secret_hash);
}

function assertOpen(row: CodingSessionRow): void {
  if (row.status !== 'pending' && row.status !== 'running')
    throw new ArenaError('conflict', codingRefusals.ended(row.status));
  // The workflow refuses it as well; this answers without asking it.
  if (new Date(row.expires_at).getTime() <= Date.now()) throw new ArenaError('conflict', codingRefusals.deadline);
}

/**
 * Runs one step through the session's workflow and answers its recorded result. Within the caps: an
 * account's steps in flight (429) and what the session's worker has slots and queue for (503).
 */
export async function runCodingStep(
  em: EntityManager,
  deps: Pick<CodingDeps, 'workflows' | 'capacity'>,
  row: CodingSessionRow,
  kind: Exclude<CodingStepKind, 'submit'>,
  request: Record<string, unknown>,
): Promise<CodingStepRow> {
  assertOpen(row);
  const { capacity, workflows } = deps;
  const admitted = await admitCodingStep(
    em,
    { sessionId: row.session_id, ownerId: row.owner_id, workerQueue: row.worker_queue, kind, request },
    { stepsPerAccount: capacity.stepsPerAccount, stepsPerWorker: capacity.stepSlots + capacity.stepQueue },
  );
  if ('full' in admitted) {
    if (admitted.full === 'account') {
      throw new ArenaError(
        'rate_limited',
        `this account already has ${capacity.stepsPerAccount} coding steps running, the most it may have at once`,
        1,
      );
    }
    throw new ArenaError('unavailable', codingRefusals.busy, STEP_RETRY_AFTER_SECONDS);
  }
  const { stepId } = admitted;
  const steered = await runStepOfCodingSession(workflows, row.session_id, stepId);
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

/** The active tasks an owner may pick from (the website's form), by suite and id. */
export async function codingTaskChoices(
  em: EntityManager,
): Promise<Array<{ id: string; title: string; suite: string }>> {
  return (await activeTasks(em)).map(({ id, title, suite }) => ({ id, title, suite }));
}

/** An agent's latest benchmark run, as its owner's page shows it. */
export async function benchmarkProgressOf(
  em: EntityManager,
  agentId: number,
): Promise<{ tasks: number; ended: number; passed: number; running: boolean } | null> {
  const run = await latestBenchmarkRun(em, agentId);
  return run ? { tasks: run.tasks, ended: run.ended, passed: run.passed, running: run.finished_at === null } : null;
}
