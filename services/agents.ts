/** What an owner can do to their own agents, from the API or the website: new secret, deactivate, sandbox tasks. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import { Agent } from '../infra/db/entities/agent.entity';
import { Prompt } from '../infra/db/entities/prompt.entity';
import { Session } from '../infra/db/entities/session.entity';
import { findSession, type SessionRow } from '../infra/db/repositories/session-queries';
import { isAgentActive } from '../domain/agent-state';
import { hashToken, newAgentSecret, sealSecret } from '../domain/credentials';
import { startDelivery, type WorkflowDeps } from './deliveries';
import { ApiError, notFound } from '../api/errors';
import type { sandboxCreate } from '../api/schemas/session';

/** The agent if this account owns it; a missing agent and someone else's look the same (404). */
export async function ownedAgent(em: EntityManager, agentId: number, ownerId: number): Promise<Agent> {
  const agent = await em.getRepository(Agent).findOwned(agentId, ownerId);
  if (!agent) throw notFound('agent');
  return agent;
}

/** A new secret, returned once; the old one stops working for signing and `X-Arena-Secret` at once. */
export async function regenerateSecret(em: EntityManager, agent: Agent, encryptionKey: Buffer, log: FastifyBaseLogger): Promise<string> {
  const secret = newAgentSecret();
  agent.secretHash = hashToken(secret);
  agent.secretSealed = sealSecret(secret, encryptionKey);
  await em.flush();
  log.info({ agentId: agent.id }, 'agent secret regenerated');
  return secret;
}

/** Deactivation is permanent: nothing turns it back. */
export async function deactivateAgent(em: EntityManager, agent: Agent): Promise<void> {
  agent.deactivated = true;
  await em.flush();
}

export type SandboxRequest = z.output<typeof sandboxCreate>;

/** Sends the owner's prompt to their agent as a `sandbox` delivery; the pending session comes back. */
export async function startSandboxTask(
  em: EntityManager,
  workflows: WorkflowDeps,
  agent: Agent,
  { prompt: text, category, deadline_seconds: deadlineSeconds }: SandboxRequest,
  log: FastifyBaseLogger,
): Promise<SessionRow> {
  if (agent.deactivated) throw new ApiError(409, 'agent is deactivated');
  if (!isAgentActive(agent)) throw new ApiError(409, `agent is not active: its last ping failed (${agent.pingError}); fix the webhook and retest`);
  const prompt = em.create(Prompt, { source: 'sandbox', category, text });
  const session = em.create(Session, { agent, kind: 'sandbox', prompt, mode: agent.mode, category, deadlineSeconds });
  await em.flush();
  try {
    await startDelivery(workflows, { sessionId: session.id, agentId: agent.id, kind: 'sandbox', mode: agent.mode, category, deadlineSeconds });
  } catch (err) {
    // Nothing will deliver it: close the session so the feed does not show it pending for ever.
    session.status = 'error';
    session.error = 'the delivery could not be started';
    session.latencyMs = 0;
    session.completedAt = new Date();
    await em.flush();
    log.error({ err, sessionId: session.id }, 'could not start a sandbox delivery');
    throw new ApiError(503, 'the delivery service is unavailable; try again shortly', { 'Retry-After': '5' });
  }
  return (await findSession(em, agent.id, session.id))!;
}
