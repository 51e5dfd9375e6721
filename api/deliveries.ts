/** Starting and steering workflows from the API: sandbox deliveries, the gym, results and cancels. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Agent } from '../infra/db/entities/agent.entity';
import { isAgentActive } from '../infra/domain/agent-state';
import { deliveryStartOptions, deliveryWorkflowId, gymWorkflowId, type DeliveryInput, type DeliveryOutcome, type PullResult } from '../workflows/contracts';
import { cancelDelivery, submitResult } from '../workflows/definitions';

export interface WorkflowDeps {
  client: Client;
  taskQueue: string;
  gymRetrySeconds: number;
}

export async function startDelivery(deps: WorkflowDeps, input: DeliveryInput): Promise<void> {
  await deps.client.workflow.start('deliverPrompt', {
    ...deliveryStartOptions(input),
    taskQueue: deps.taskQueue,
    args: [input],
  });
}

/** Starts the gym the first time an agent is active; later calls do nothing. The caller flushes first. */
export async function startGymIfFirstActive(em: EntityManager, agent: Agent, deps: WorkflowDeps): Promise<void> {
  if (agent.gymAttempt > 0 || !isAgentActive(agent)) return;
  await startGymAttempt(em, agent, deps);
}

/** Begins a new gym attempt: progress counts from now, and an older attempt's workflow stops at its next step. */
export async function startGymAttempt(em: EntityManager, agent: Agent, deps: WorkflowDeps): Promise<void> {
  const previous = agent.gymAttempt;
  agent.gymAttempt = previous + 1;
  agent.gymComplete = false;
  agent.gymStartedAt = new Date();
  agent.gymCompletedAt = null;
  await em.flush();
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
}

export type SteerResult = { kind: 'done'; outcome: DeliveryOutcome } | { kind: 'refused'; reason: string } | { kind: 'closed' };

/** Sends an update to a delivery: its validator's refusal comes back as `refused`; a finished workflow as `closed`. */
async function steer(deps: WorkflowDeps, sessionId: number, send: (handle: ReturnType<Client['workflow']['getHandle']>) => Promise<DeliveryOutcome>): Promise<SteerResult> {
  try {
    return { kind: 'done', outcome: await send(deps.client.workflow.getHandle(deliveryWorkflowId(sessionId))) };
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
