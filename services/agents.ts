/** What an owner can do to their own agents, from the API or the website: list them, new secret, deactivate, sandbox tasks. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { Agent } from '../infra/db/entities/agent.entity';
import { Prompt } from '../infra/db/entities/prompt.entity';
import { withdrawPairsOf } from '../infra/db/repositories/pair.repository';
import { addDelivery, closeUnstartedDeliveries } from '../infra/db/repositories/session.repository';
import { findDelivery, type SessionRow } from '../infra/db/repositories/session-read.repository';
import { assertCanTakeDelivery } from '../domain/agent-state';
import { ArenaError, notFound } from '../domain/errors';
import { parseDeliveryPublicId } from '../domain/sessions';
import { hashToken, newAgentSecret, sealSecret } from '../domain/credentials';
import { refusals } from '../workflows/contracts';
import { openDelivery, cancelSandbox, startDelivery, type WorkflowDeps } from './workflow-client';

/** The agent if this account owns it; a missing agent and someone else's look the same (404). */
export async function ownedAgent(em: EntityManager, agentId: number, ownerId: number): Promise<Agent> {
  const agent = await em.getRepository(Agent).findOwned(agentId, ownerId);
  if (!agent) throw notFound('agent');
  return agent;
}

/** The account's agents, oldest first. */
export function agentsOf(em: EntityManager, ownerId: number): Promise<Agent[]> {
  return em.getRepository(Agent).listOwned(ownerId);
}

/** A new secret, returned once; the old one stops working for signing and `X-Arena-Secret` at once. */
export async function regenerateSecret(
  em: EntityManager,
  agent: Agent,
  encryptionKey: Buffer,
  log: FastifyBaseLogger,
): Promise<string> {
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
  await withdrawPairsOf(em, agent.id);
}

/** An owner's own prompt for their agent (api/schemas/session's sandboxCreate is checked against it). */
export interface SandboxRequest {
  prompt: string;
  category: string;
  deadline_seconds: number;
}

/** Sends the owner's prompt to their agent as a `sandbox` delivery; the pending session comes back. */
export async function startSandboxTask(
  em: EntityManager,
  workflows: WorkflowDeps,
  agent: Agent,
  { prompt: text, category, deadline_seconds: deadlineSeconds }: SandboxRequest,
  log: FastifyBaseLogger,
): Promise<SessionRow> {
  assertCanTakeDelivery(agent);
  const prompt = em.create(Prompt, { source: 'sandbox', category, text });
  const session = addDelivery(em, { agent, kind: 'sandbox', prompt, mode: agent.mode, category, deadlineSeconds });
  await em.flush();
  await openDelivery({
    start: () =>
      startDelivery(workflows, {
        sessionId: session.id,
        agentId: agent.id,
        kind: 'sandbox',
        mode: agent.mode,
        category,
        deadlineSeconds,
      }),
    closeUnstarted: (error) => closeUnstartedDeliveries(em, [session], error),
    log,
    context: { sessionId: session.id },
  });
  return (await findDelivery(em, agent.id, session.id))!;
}

/** Cancels the owner's pending sandbox task (`sandbox-<n>`); one that has ended, or that the delivery refuses to cancel, is a conflict. */
export async function cancelSandboxTask(
  em: EntityManager,
  workflows: WorkflowDeps,
  agent: Agent,
  publicId: string,
): Promise<SessionRow> {
  const parsed = parseDeliveryPublicId(publicId);
  if (!parsed || parsed.kind !== 'sandbox') throw notFound('sandbox task');
  const before = await findDelivery(em, agent.id, parsed.id);
  if (!before || before.kind !== 'sandbox') throw notFound('sandbox task');
  // A coding session can be cancelled while the agent works it, too.
  if (before.status !== 'pending' && before.status !== 'running')
    throw new ArenaError('conflict', `${refusals.ended} (${before.status})`);
  const result = await cancelSandbox(workflows, parsed.id);
  if (result.kind === 'refused') throw new ArenaError('conflict', result.reason);
  const after = await findDelivery(em, agent.id, parsed.id);
  if (after!.status !== 'cancelled') throw new ArenaError('conflict', `${refusals.ended} (${after!.status})`);
  return after!;
}

/** One of the owner's sandbox tasks by its public id (`sandbox-<n>`); undefined for anything else. */
export async function sandboxTaskOf(
  em: EntityManager,
  agent: Agent,
  publicId: string,
): Promise<SessionRow | undefined> {
  const parsed = parseDeliveryPublicId(publicId);
  return parsed?.kind === 'sandbox' ? findDelivery(em, agent.id, parsed.id) : undefined;
}
