/**
 * Pull deliveries, the runner's side: who may pull, handing out the next work item, and taking its
 * result. The long-poll that waits for work only holds sockets (api/long-polls.ts); the rules are here.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { tokenMatchesHash } from '../domain/credentials';
import { workPayload, type WorkPayload } from '../domain/delivery-payload';
import { ArenaError, notFound } from '../domain/errors';
import { sandboxPayload } from '../domain/sandbox/payload';
import { isCodingSession, parseDeliveryPublicId, type DeliveryStatus } from '../domain/deliveries';
import {
  findAgentCredentials,
  markAgentSeen,
  type AgentCredentialsRow,
} from '../infra/db/repositories/agent.repository';
import { findCodingSession, recordCodingSummary } from '../infra/db/repositories/coding.repository';
import { findDelivery, type DeliveryRow } from '../infra/db/repositories/delivery-read.repository';
import { claimWork, releaseWork } from '../infra/db/repositories/work-item.repository';
import { refusals } from '../workflows/contracts';
import { submitPullResult, type WorkflowDeps } from './workflow-client';

/** What a coding session's work item needs to name its sandbox: the step API's address and the token key. */
export interface SandboxKeys {
  /** What a coding session's `sandbox` URLs start with: the base the runner reached the arena at. */
  publicUrl: string;
  encryptionKey: Buffer;
}

/** A runner's result for a work item, as posted: exactly one of response or error. */
export interface WorkResult {
  response?: string;
  error?: string;
  latency_ms?: number;
}

const notHandedOut = () =>
  new ArenaError('conflict', 'work item has not been handed out yet; fetch it with work/next first');

/** A runner's call as it names its agent: the agent's id and the `X-Arena-Secret` it sent. */
export interface PullCaller {
  agentId: number;
  secret: string | string[] | undefined;
}

/**
 * The pull agent a call names, once its secret checks out (not found, a wrong secret, push mode or
 * deactivated are refused in that order). With `lookAtQueue`, also whether it has queued work.
 */
export async function authenticatePullAgent(
  db: EntityManager,
  agentId: number,
  secret: string | string[] | undefined,
  { lookAtQueue = false } = {},
): Promise<AgentCredentialsRow> {
  const agent = await findAgentCredentials(db, agentId, { lookAtQueue });
  if (!agent) throw notFound('agent');
  if (typeof secret !== 'string' || !tokenMatchesHash(secret, agent.secret_hash)) {
    throw new ArenaError('forbidden', 'invalid or missing X-Arena-Secret');
  }
  if (agent.mode !== 'pull') throw new ArenaError('conflict', refusals.notPullMode);
  if (agent.deactivated) throw new ArenaError('conflict', 'agent is deactivated');
  return agent;
}

/** Leases the agent's oldest queued work item and builds what the runner gets; undefined when none is queued. */
export async function takeNextWork(
  db: EntityManager,
  agentId: number,
  keys: SandboxKeys,
): Promise<{ id: number; payload: WorkPayload } | undefined> {
  const work = await claimWork(db, agentId);
  if (!work) return undefined;
  const coding = work.coding ? await findCodingSession(db, work.id) : undefined;
  const payload = workPayload(
    {
      promptId: work.prompt_id,
      text: work.text,
      category: work.category,
      deadlineSeconds: work.remaining_seconds,
      ...(coding ? { sandbox: sandboxPayload(coding, keys.publicUrl, keys.encryptionKey) } : {}),
    },
    { kind: work.kind, id: work.id, redeliveryOfId: work.redelivery_of_id },
  );
  return { id: work.id, payload };
}

/** Puts a leased item back in the queue: the runner it was leased to left before it got it. */
export function returnWork(db: EntityManager, id: number): Promise<void> {
  return releaseWork(db, id);
}

/**
 * Records a runner's result, once the caller is authenticated as the item's agent. The delivery's workflow takes it while it waits; once settled, the same
 * result again is accepted and any other refused with the reason (answered, expired, cancelled).
 * A coding session's result is only its summary: the session goes on until submit or its deadline.
 */
export async function submitWorkResult(
  db: EntityManager,
  workflows: WorkflowDeps,
  caller: PullCaller,
  workId: string,
  result: WorkResult,
  receivedAt: number,
): Promise<WorkRecorded> {
  const agent = await authenticatePullAgent(db, caller.agentId, caller.secret);
  await markAgentSeen(db, agent.id);
  const parsed = parseDeliveryPublicId(workId);
  const row = parsed ? await findDelivery(db, agent.id, parsed.id) : undefined;
  if (!parsed || !row || row.kind !== parsed.kind || row.mode !== 'pull') throw notFound('work item');
  // What the arena made of it, read once the result is in: the runner says that, not what it sent.
  const recorded = async (): Promise<WorkRecorded> => {
    const now = (await findDelivery(db, agent.id, row.id))!;
    return { work_id: workId, recorded: true, status: now.status, error: now.error };
  };
  if (isCodingSession(row)) {
    if (row.work_state === 'queued') throw notHandedOut();
    await recordCodingSummary(db, row.id, result.response ?? result.error ?? '');
    return recorded();
  }
  const hash = resultHash(result);
  if (row.status === 'pending' && row.work_state !== 'leased') throw notHandedOut();
  if (row.status === 'pending') {
    const steer = await submitPullResult(workflows, row.id, {
      response: result.response ?? null,
      error: result.error ?? null,
      agentLatencyMs: result.latency_ms ?? null,
      resultHash: hash,
      receivedAt,
    });
    if (steer.kind === 'done') return recorded();
    if (steer.kind === 'refused') throw new ArenaError('conflict', steer.reason);
  }
  // Settled already (or it settled while we asked): the same result again is fine, anything else is a conflict.
  const settled = row.status === 'pending' ? await findDelivery(db, agent.id, row.id) : row;
  const conflict = settledConflict(settled!, hash);
  if (conflict) throw new ArenaError('conflict', conflict);
  return recorded();
}

/** A result taken: the delivery's status then (a coding session's own, which may still be running) and its public error. */
export interface WorkRecorded {
  work_id: string;
  recorded: true;
  status: DeliveryStatus;
  error: string | null;
}

function resultHash(result: WorkResult): string {
  return createHash('sha256')
    .update(JSON.stringify([result.response ?? null, result.error ?? null]))
    .digest('hex');
}

/** Why a result for an already settled item is refused, or null when it is the same result again. */
function settledConflict(row: DeliveryRow, hash: string): string | null {
  if (row.result_hash === hash) return null;
  if (row.result_hash) return refusals.differentResult;
  if (row.status === 'cancelled') return refusals.cancelled;
  return refusals.expired(row.deadline_seconds);
}
