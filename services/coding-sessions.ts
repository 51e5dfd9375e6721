/**
 * Coding sandbox sessions: an owner starts one (a task, or a benchmark run of every active task),
 * and the agent works it step by step with the session's token or its own secret. Each step is
 * written as a row, then run by the session's workflow on the worker that holds the workspace
 * (the steps themselves: coding-steps.ts).
 */
import { ARENA_SUITE, HUMANEVAL_SUITE, type CodingSuite } from '../domain/sandbox/suites';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { assertCanTakeDelivery } from '../domain/agent-state';
import { ArenaError, notFound } from '../domain/errors';
import type { Agent } from '../infra/db/entities/agent.entity';
import type { Prompt } from '../infra/db/entities/prompt.entity';
import type { CodingCapacity, SandboxSettings } from '../infra/config';
import { findCodingSession, openCodingSessionRows } from '../infra/db/repositories/coding.repository';
import {
  latestBenchmarkRun,
  finishBenchmarkRun,
  startBenchmarkRun,
} from '../infra/db/repositories/benchmark-run.repository';
import { activeTasks, findCodingTask, pickActiveTask } from '../infra/db/repositories/coding-task.repository';
import { findDelivery, type DeliveryRow } from '../infra/db/repositories/delivery-read.repository';
import { deliveryUnavailable, startBenchmarkWorkflow, type WorkflowDeps } from './workflow-client';
import { ownedAgent, type OwnedAgentRef } from './agents';
import { startDeliveries } from './start-deliveries';

export const CODING_DEADLINE = { default: 1_800, min: 60, max: 3_600 } as const;

/** Attempts of each task a benchmark run makes: 1 to 5, 3 unless asked. */
export const BENCHMARK_TRIALS = { default: 3, min: 1, max: 5 } as const;

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
