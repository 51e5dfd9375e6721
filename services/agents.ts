/** What an owner can do to their own agents, from the API or the website: list them, new secret, deactivate, sandbox tasks. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { Agent } from '../infra/db/entities/agent.entity';
import { Prompt } from '../infra/db/entities/prompt.entity';
import type { Delivery } from '../infra/db/entities/delivery.entity';
import { withdrawPairsOf } from '../infra/db/repositories/pair.repository';
import { addDelivery, writtenDelivery } from '../infra/db/repositories/delivery.repository';
import { findDelivery, type DeliveryRow } from '../infra/db/repositories/delivery-read.repository';
import { assertCanTakeDelivery } from '../domain/agent-state';
import { ArenaError, notFound } from '../domain/errors';
import { parseDeliveryPublicId } from '../domain/deliveries';
import { hashToken, newAgentSecret, sealSecret } from '../domain/credentials';
import { refusals } from '../workflows/contracts';
import { startDeliveries } from './start-deliveries';
import { cancelSandbox, type WorkflowDeps } from './workflow-client';

/** An agent as a request names it: its id, and the account that must own it. */
export interface OwnedAgentRef {
  agentId: number;
  ownerId: number;
}

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

/** An owner's own prompt for their agent (api/schemas/delivery's sandboxCreate is checked against it). */
export interface SandboxRequest {
  prompt: string;
  category: string;
  deadline_seconds: number;
}

/**
 * Sends the owner's prompt to their agent as a `sandbox` delivery (404 unless they own it). The
 * pending session comes back as written, not read again: the delivery may have moved on since.
 */
export async function startSandboxTask(
  em: EntityManager,
  workflows: WorkflowDeps,
  { agentId, ownerId }: OwnedAgentRef,
  { prompt: text, category, deadline_seconds: deadlineSeconds }: SandboxRequest,
  log: FastifyBaseLogger,
): Promise<DeliveryRow> {
  const agent = await ownedAgent(em, agentId, ownerId);
  assertCanTakeDelivery(agent);
  const prompt = em.create(Prompt, { source: 'sandbox', category, text });
  const session = addDelivery(em, { agent, kind: 'sandbox', prompt, mode: agent.mode, category, deadlineSeconds });
  await em.flush();
  await startDeliveries(em, workflows, [writtenDelivery(session)], { kind: 'delivery' }, log);
  return pendingDelivery(session, text);
}

/** A just-started delivery as the feed reads it, from what was written: nothing has happened to it yet. */
function pendingDelivery(session: Delivery, text: string): DeliveryRow {
  return {
    id: session.id,
    agent_id: session.agent.id,
    kind: session.kind,
    mode: session.mode,
    category: session.category,
    prompt: text,
    response: null,
    error: null,
    error_detail: null,
    latency_ms: null,
    status: 'pending',
    created_ms: session.createdAt.getTime(),
    deadline_seconds: session.deadlineSeconds,
    result_hash: null,
    work_state: null,
    redelivery_of_id: null,
    in_judging: false,
  };
}

/** Cancels the owner's pending sandbox task (`sandbox-<n>`); one that has ended, or that the delivery refuses to cancel, is a conflict. */
export async function cancelSandboxTask(
  em: EntityManager,
  workflows: WorkflowDeps,
  agent: Agent,
  publicId: string,
): Promise<DeliveryRow> {
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
): Promise<DeliveryRow | undefined> {
  const parsed = parseDeliveryPublicId(publicId);
  return parsed?.kind === 'sandbox' ? findDelivery(em, agent.id, parsed.id) : undefined;
}
