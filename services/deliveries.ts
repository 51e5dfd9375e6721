/** Starting and steering workflows from the API: sandbox deliveries, the gym, results and cancels. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Agent } from '../infra/db/entities/agent.entity';
import { isAgentActive } from '../domain/agent-state';
import {
  deliveryStartOptions,
  deliveryWorkflowId,
  gymWorkflowId,
  liveBattleWorkflowId,
  voteWorkflowId,
  type DeliveryInput,
  type DeliveryOutcome,
  type LiveBattleInput,
  type PullResult,
  type VoteOutcome,
} from '../workflows/contracts';
import { cancelDelivery, submitResult } from '../workflows/definitions';
import type { Verdict } from '../domain/arena';

export interface WorkflowDeps {
  client: Client;
  taskQueue: string;
  gymRetrySeconds: number;
  /** Bound on a call that starts or cancels a workflow, so an unreachable Temporal answers 503 instead of hanging. */
  callTimeoutMs: number;
}

/** A result waits until it is recorded, which needs a worker: give it longer than a start. */
const UPDATE_TIMEOUT_MS = 60_000;

function within<T>(deps: WorkflowDeps, ms: number, call: () => Promise<T>): Promise<T> {
  return deps.client.connection.withDeadline(Date.now() + ms, call);
}

export async function startDelivery(deps: WorkflowDeps, input: DeliveryInput): Promise<void> {
  await within(deps, deps.callTimeoutMs, () =>
    deps.client.workflow.start('deliverPrompt', { ...deliveryStartOptions(input), taskQueue: deps.taskQueue, args: [input] }),
  );
}

/**
 * Starts the gym the first time an agent is active; later calls do nothing. It never fails the
 * request that made the agent active (that would lose the secret it shows once): if Temporal is
 * unreachable the agent is left as not started, and the next activation or a restart starts it.
 */
export async function startGymIfFirstActive(em: EntityManager, agent: Agent, deps: WorkflowDeps, log: FastifyBaseLogger): Promise<void> {
  if (agent.gymAttempt > 0 || !isAgentActive(agent)) return;
  try {
    await startGymAttempt(em, agent, deps);
  } catch (err) {
    log.error({ err, agentId: agent.id }, 'could not start the gym');
    agent.gymAttempt = 0;
    agent.gymStartedAt = null;
    await em.flush();
  }
}

/** Begins a new gym attempt: progress counts from now, and an older attempt's workflow stops at its next step. */
export async function startGymAttempt(em: EntityManager, agent: Agent, deps: WorkflowDeps): Promise<void> {
  const previous = agent.gymAttempt;
  agent.gymAttempt = previous + 1;
  agent.gymComplete = false;
  agent.gymStartedAt = new Date();
  agent.gymCompletedAt = null;
  await em.flush();
  await within(deps, deps.callTimeoutMs, async () => {
    if (previous > 0) {
      await deps.client.workflow
        .getHandle(gymWorkflowId(agent.id, previous))
        .cancel()
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        });
    }
    await deps.client.workflow
      .start('runGym', {
        workflowId: gymWorkflowId(agent.id, agent.gymAttempt),
        taskQueue: deps.taskQueue,
        args: [{ agentId: agent.id, attempt: agent.gymAttempt, retrySeconds: deps.gymRetrySeconds }],
        staticSummary: `gym of agent ${agent.id}, attempt ${agent.gymAttempt}`,
      })
      .catch((err: unknown) => {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      });
  });
}

export type SteerResult = { kind: 'done'; outcome: DeliveryOutcome } | { kind: 'refused'; reason: string } | { kind: 'closed' };

/** Sends an update to a delivery: its validator's refusal comes back as `refused`; a finished workflow as `closed`. */
async function steer(deps: WorkflowDeps, sessionId: number, send: (handle: ReturnType<Client['workflow']['getHandle']>) => Promise<DeliveryOutcome>): Promise<SteerResult> {
  try {
    const handle = deps.client.workflow.getHandle(deliveryWorkflowId(sessionId));
    return { kind: 'done', outcome: await within(deps, UPDATE_TIMEOUT_MS, () => send(handle)) };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) return { kind: 'refused', reason: err.cause?.message ?? err.message };
    if (err instanceof WorkflowNotFoundError || isCompletedError(err)) return { kind: 'closed' };
    throw err;
  }
}

function isCompletedError(err: unknown): boolean {
  return /workflow execution already completed/i.test(String((err as Error)?.message));
}

export function submitPullResult(deps: WorkflowDeps, sessionId: number, result: PullResult): Promise<SteerResult> {
  return steer(deps, sessionId, (handle) => handle.executeUpdate(submitResult, { args: [result] }));
}

export function cancelSandbox(deps: WorkflowDeps, sessionId: number): Promise<SteerResult> {
  return steer(deps, sessionId, (handle) => handle.executeUpdate(cancelDelivery));
}

/** Runs the vote workflow (`vote-<battle id>`) and waits for the rating change; null when the battle was already voted. */
export async function castVote(deps: WorkflowDeps, battleId: number, winner: Verdict): Promise<VoteOutcome | null> {
  try {
    const handle = await within(deps, deps.callTimeoutMs, () =>
      deps.client.workflow.start('recordVote', {
        workflowId: voteWorkflowId(battleId),
        taskQueue: deps.taskQueue,
        args: [{ battleId, winner }],
        staticSummary: `vote on battle ${battleId}: ${winner}`,
        // A closed vote workflow keeps its id: a battle can never be voted twice.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
    return await within(deps, UPDATE_TIMEOUT_MS, () => handle.result() as Promise<VoteOutcome>);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return null;
    throw err;
  }
}

export async function startLiveBattle(deps: WorkflowDeps, input: LiveBattleInput): Promise<void> {
  await within(deps, deps.callTimeoutMs, () =>
    deps.client.workflow.start('liveBattle', {
      workflowId: liveBattleWorkflowId(input.battleId),
      taskQueue: deps.taskQueue,
      args: [input],
      staticSummary: `live battle ${input.battleId}: agents ${input.deliveries[0].agentId} and ${input.deliveries[1].agentId}`,
    }),
  );
}
