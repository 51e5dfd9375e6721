/** Gym starts: an agent's gym attempt is counted on its row, then its workflow is started. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { Agent } from '../infra/db/entities/agent.entity';
import { isAgentActive } from '../domain/agent-state';
import { startGym, type WorkflowDeps } from './workflow-client';

/**
 * Starts the gym the first time an agent is active; later calls do nothing. It never fails the
 * request that made the agent active (that would lose the secret it shows once): if Temporal is
 * unreachable the agent is left as not started, and the next activation or a restart starts it.
 */
export async function startGymIfFirstActive(
  em: EntityManager,
  agent: Agent,
  deps: WorkflowDeps,
  log: FastifyBaseLogger,
): Promise<void> {
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
  await startGym(deps, agent.id, agent.gymAttempt, previous);
}
