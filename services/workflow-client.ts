/**
 * The typed Temporal client wrapper: starts and steers the arena's workflows (deliveries, the gym,
 * votes, live battles) by their functions. It writes no rows; the use cases that call it do, and
 * start the deliveries they write through `startDeliveries` (start-deliveries.ts).
 */
import {
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { Verdict } from '../domain/arena';
import { ArenaError } from '../domain/errors';
import { codingSession, deliverPrompt, liveBattle, recordVote, runBenchmark, runGym } from '../workflows';
import {
  benchmarkWorkflowId,
  cancelDelivery,
  codingSessionStartOptions,
  deliveryStartOptions,
  cancelCodingStep,
  runCodingStep,
  submitCoding,
  type BenchmarkInput,
  type CodingScore,
  type CodingSessionInput,
  type CodingStepDone,
  deliveryWorkflowId,
  gymWorkflowId,
  liveBattleWorkflowId,
  submitResult,
  voteWorkflowId,
  type DeliveryInput,
  type DeliveryOutcome,
  type LiveBattleInput,
  type PullResult,
  type RecordedVote,
} from '../workflows/contracts';

export interface WorkflowDeps {
  client: Client;
  taskQueue: string;
  gymRetrySeconds: number;
  /** Bound on a call that starts or cancels a workflow, so an unreachable Temporal answers 503 instead of hanging. */
  callTimeoutMs: number;
  /**
   * Ask the server to hand each new workflow's first task straight back to a worker in this process
   * (only when `client` runs on that worker's connection: the embedded stack).
   */
  eagerStart: boolean;
}

/** A result waits until it is recorded, which needs a worker: give it longer than a start. */
const UPDATE_TIMEOUT_MS = 60_000;

function within<T>(deps: WorkflowDeps, ms: number, call: () => Promise<T>): Promise<T> {
  return deps.client.connection.withDeadline(Date.now() + ms, call);
}

/** What a caller hears when Temporal cannot take the start: the arena's fault, worth trying again. */
export const deliveryUnavailable = () =>
  new ArenaError('unavailable', 'the delivery service is unavailable; try again shortly', 5);

export async function startDelivery(deps: WorkflowDeps, input: DeliveryInput): Promise<void> {
  await within(deps, deps.callTimeoutMs, () =>
    deps.client.workflow.start(deliverPrompt, {
      ...deliveryStartOptions(input),
      taskQueue: deps.taskQueue,
      requestEagerStart: deps.eagerStart,
      args: [input],
    }),
  );
}

/**
 * Starts an agent's gym attempt. The previous attempt's workflow, if there is one, is cancelled
 * first; an attempt already started (a retried call) is left running.
 */
export async function startGym(deps: WorkflowDeps, agentId: number, attempt: number, previous: number): Promise<void> {
  await within(deps, deps.callTimeoutMs, async () => {
    if (previous > 0) {
      await deps.client.workflow
        .getHandle(gymWorkflowId(agentId, previous))
        .cancel()
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        });
    }
    await deps.client.workflow
      .start(runGym, {
        workflowId: gymWorkflowId(agentId, attempt),
        taskQueue: deps.taskQueue,
        requestEagerStart: deps.eagerStart,
        args: [{ agentId, attempt, retrySeconds: deps.gymRetrySeconds }],
        staticSummary: `gym of agent ${agentId}, attempt ${attempt}`,
      })
      .catch((err: unknown) => {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      });
  });
}

export type SteerResult =
  { kind: 'done'; outcome: DeliveryOutcome } | { kind: 'refused'; reason: string } | { kind: 'closed' };

/**
 * Sends an update to a delivery: its validator's refusal comes back as `refused`; a finished
 * workflow as `closed`. The server answers an update to a completed workflow with NOT_FOUND, which
 * the client raises as WorkflowNotFoundError, the same as for a workflow that never existed.
 */
async function steer(
  deps: WorkflowDeps,
  sessionId: number,
  send: (handle: WorkflowHandle<typeof deliverPrompt>) => Promise<DeliveryOutcome>,
): Promise<SteerResult> {
  try {
    const handle = deps.client.workflow.getHandle<typeof deliverPrompt>(deliveryWorkflowId(sessionId));
    return { kind: 'done', outcome: await within(deps, UPDATE_TIMEOUT_MS, () => send(handle)) };
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal !== undefined) return { kind: 'refused', reason: refusal };
    if (err instanceof WorkflowNotFoundError) return { kind: 'closed' };
    throw err;
  }
}

/**
 * The reason a delivery's validator gave, when the update failed because it was refused. Refusals
 * carry the type `DeliveryRefused`; a worker still running older code refuses with a plain
 * ApplicationFailure, which counts as a refusal too, so a rolling upgrade never turns one into a 500.
 */
function refusalOf(err: unknown): string | undefined {
  if (!(err instanceof WorkflowUpdateFailedError)) return undefined;
  return err.cause instanceof ApplicationFailure ? err.cause.message : undefined;
}

export function submitPullResult(deps: WorkflowDeps, sessionId: number, result: PullResult): Promise<SteerResult> {
  return steer(deps, sessionId, (handle) => handle.executeUpdate(submitResult, { args: [result] }));
}

export function cancelSandbox(deps: WorkflowDeps, sessionId: number): Promise<SteerResult> {
  return steer(deps, sessionId, (handle) => handle.executeUpdate(cancelDelivery));
}

/** Runs the vote workflow (`vote-<battle id>`) and waits for the rating change; null when the battle was already voted. */
export async function castVote(deps: WorkflowDeps, battleId: number, winner: Verdict): Promise<RecordedVote | null> {
  try {
    const handle = await within(deps, deps.callTimeoutMs, () =>
      deps.client.workflow.start(recordVote, {
        workflowId: voteWorkflowId(battleId),
        taskQueue: deps.taskQueue,
        requestEagerStart: deps.eagerStart,
        args: [{ battleId, winner }],
        staticSummary: `vote on battle ${battleId}: ${winner}`,
        // A closed vote workflow keeps its id: a battle can never be voted twice.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
    return await within(deps, UPDATE_TIMEOUT_MS, () => handle.result());
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return null;
    throw err;
  }
}

export async function startLiveBattle(deps: WorkflowDeps, input: LiveBattleInput): Promise<void> {
  await within(deps, deps.callTimeoutMs, () =>
    deps.client.workflow.start(liveBattle, {
      workflowId: liveBattleWorkflowId(input.battleId),
      taskQueue: deps.taskQueue,
      requestEagerStart: deps.eagerStart,
      args: [input],
      staticSummary: `live battle ${input.battleId}: agents ${input.deliveries[0].agentId} and ${input.deliveries[1].agentId}`,
    }),
  );
}

export async function startCodingSessionWorkflow(deps: WorkflowDeps, input: CodingSessionInput): Promise<void> {
  await within(deps, deps.callTimeoutMs, () =>
    deps.client.workflow.start(codingSession, {
      ...codingSessionStartOptions(input),
      taskQueue: deps.taskQueue,
      requestEagerStart: deps.eagerStart,
      args: [input],
    }),
  );
}

/** A benchmark run's workflow, which opens its sessions as the account's cap allows. */
export async function startBenchmarkWorkflow(deps: WorkflowDeps, input: BenchmarkInput): Promise<void> {
  await within(deps, deps.callTimeoutMs, () =>
    deps.client.workflow.start(runBenchmark, {
      workflowId: benchmarkWorkflowId(input.runId),
      taskQueue: deps.taskQueue,
      staticSummary: `benchmark run ${input.runId} of agent ${input.agentId}: ${input.taskIds.length} tasks × ${input.trials}`,
      args: [input],
    }),
  );
}

/** A coding step or submit through the session's workflow: done, refused (with the refusal's type), or the session closed. */
type CodingSteer<T> =
  { kind: 'done'; value: T } | { kind: 'refused'; reason: string; type: string | undefined } | { kind: 'closed' };

async function steerCoding<T>(
  deps: WorkflowDeps,
  sessionId: number,
  send: (handle: WorkflowHandle<typeof codingSession>) => Promise<T>,
): Promise<CodingSteer<T>> {
  try {
    const handle = deps.client.workflow.getHandle<typeof codingSession>(deliveryWorkflowId(sessionId));
    return { kind: 'done', value: await within(deps, CODING_UPDATE_TIMEOUT_MS, () => send(handle)) };
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal !== undefined) {
      const type =
        err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure
          ? (err.cause.type ?? undefined)
          : undefined;
      return { kind: 'refused', reason: refusal, type };
    }
    if (err instanceof WorkflowNotFoundError) return { kind: 'closed' };
    throw err;
  }
}

/** A step runs for at most 120 s and the hidden tests for the task's limit: updates wait longer than a delivery's. */
const CODING_UPDATE_TIMEOUT_MS = 6 * 60_000;

export function runStepOfCodingSession(
  deps: WorkflowDeps,
  sessionId: number,
  stepId: number,
): Promise<CodingSteer<CodingStepDone>> {
  return steerCoding(deps, sessionId, (handle) => handle.executeUpdate(runCodingStep, { args: [{ stepId }] }));
}

/**
 * Tells the session's workflow that the client gave up on a step: queued, it never runs; running,
 * its command is stopped. A session that has ended has nothing to stop.
 */
export async function cancelStepOfCodingSession(deps: WorkflowDeps, sessionId: number, stepId: number): Promise<void> {
  try {
    const handle = deps.client.workflow.getHandle<typeof codingSession>(deliveryWorkflowId(sessionId));
    await within(deps, deps.callTimeoutMs, () => handle.signal(cancelCodingStep, { stepId }));
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

export function submitCodingSession(deps: WorkflowDeps, sessionId: number): Promise<CodingSteer<CodingScore>> {
  return steerCoding(deps, sessionId, (handle) => handle.executeUpdate(submitCoding));
}
