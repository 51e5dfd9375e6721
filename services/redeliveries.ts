/**
 * Redelivery: an operator sends a delivery's prompt again, to the same agent, as a new delivery
 * linked to the original (`redelivery_of`). Used by `arena redeliver` and the admin endpoints.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Agent } from '../infra/db/entities/agent.entity';
import { Delivery } from '../infra/db/entities/delivery.entity';
import { addDelivery, laterRedeliveries, writtenDelivery } from '../infra/db/repositories/delivery.repository';
import { assertCanTakeDelivery } from '../domain/agent-state';
import { isCodingSession, parseDeliveryPublicId, deliveryPublicId } from '../domain/deliveries';
import { redeliverCodingSession } from './coding-sessions';
import { startDeliveries } from './start-deliveries';
import type { WorkflowDeps } from './workflow-client';
import { ArenaError } from '../domain/errors';
import { listDeliveries, type DeliveryFilter, type DeliverySearch } from './delivery-search';

export interface Redelivery {
  /** The new delivery's session, `<kind>-<n>`. */
  session_id: string;
  /** The original delivery it repeats (the first of the chain, however often it was redelivered). */
  redelivery_of: string;
  workflow_id: string;
}

/** Sends the prompt of `publicId` (`<kind>-<n>`) again. 404 for an unknown session, 409 while it runs or when its agent cannot take it. */
export async function redeliver(em: EntityManager, workflows: WorkflowDeps, publicId: string): Promise<Redelivery> {
  const parsed = parseDeliveryPublicId(publicId);
  const original = parsed
    ? await em.findOne(Delivery, { id: parsed.id, kind: parsed.kind }, { populate: ['agent', 'prompt'] })
    : null;
  if (!original) throw new ArenaError('not_found', `delivery ${publicId} not found`);
  if (original.status === 'pending' || original.status === 'running')
    throw new ArenaError(
      'conflict',
      `delivery ${publicId} is still running; only a delivery that has ended can be sent again`,
    );
  const agent: Agent = original.agent.getEntity();
  assertCanTakeDelivery(agent);
  const rootId = original.redeliveryOf?.id ?? original.id;
  const root = deliveryPublicId(original.kind, rootId);
  if (isCodingSession(original)) {
    const id = await redeliverCodingSession(
      em,
      workflows,
      { id: original.id, agent, prompt: original.prompt.getEntity(), deadlineSeconds: original.deadlineSeconds },
      { id: rootId, publicId: root },
    );
    return { session_id: deliveryPublicId('sandbox', id), redelivery_of: root, workflow_id: `delivery-${id}` };
  }
  const session = addDelivery(em, {
    agent,
    kind: original.kind,
    prompt: original.prompt,
    mode: agent.mode,
    category: original.category,
    deadlineSeconds: original.deadlineSeconds,
    redeliveryOf: rootId,
  });
  await em.flush();
  await startDeliveries(em, workflows, [writtenDelivery(session)], { kind: 'delivery', redeliveryOf: root });
  return {
    session_id: deliveryPublicId(session.kind, session.id),
    redelivery_of: root,
    workflow_id: `delivery-${session.id}`,
  };
}

/** Of these deliveries, the ones a bulk redelivery should skip: a later redelivery of the same original exists. */
export async function alreadyRedelivered(em: EntityManager, publicIds: string[]): Promise<Set<string>> {
  const ids = publicIds.map((p) => parseDeliveryPublicId(p)?.id).filter((id): id is number => id !== undefined);
  if (ids.length === 0) return new Set();
  const rows = await laterRedeliveries(em, ids);
  return new Set(rows.map((r) => `${r.kind}-${r.id}`));
}

export interface BulkRedelivery {
  redelivered: Redelivery[];
  skipped: Array<{ session_id: string; reason: string }>;
}

/**
 * Redelivers every delivery the filter finds (failed ones unless it names another outcome), oldest
 * first, skipping those already redelivered, so running it twice sends nothing twice.
 */
export async function redeliverMatching(
  em: EntityManager,
  workflows: WorkflowDeps,
  search: DeliverySearch,
  filter: DeliveryFilter,
  onEach: (done: number, total: number, last: Redelivery | { session_id: string; reason: string }) => void = () =>
    undefined,
): Promise<BulkRedelivery> {
  if (filter.outcome === 'pending')
    throw new ArenaError('invalid', 'outcome must not be pending: running deliveries cannot be redelivered');
  const found = (
    await listDeliveries(workflows.client, search, { ...filter, outcome: filter.outcome ?? 'failed' })
  ).reverse();
  const skip = await alreadyRedelivered(
    em,
    found.map((d) => d.session_id),
  );
  const result: BulkRedelivery = { redelivered: [], skipped: [] };
  for (const [index, delivery] of found.entries()) {
    let last: Redelivery | { session_id: string; reason: string };
    if (skip.has(delivery.session_id)) {
      last = { session_id: delivery.session_id, reason: 'already redelivered' };
      result.skipped.push(last);
    } else {
      try {
        last = await redeliver(em.fork(), workflows, delivery.session_id);
        result.redelivered.push(last);
      } catch (err) {
        // Temporal unreachable stops the run: every later start would wait out the same timeout.
        if (!(err instanceof ArenaError) || err.kind === 'unavailable') throw err;
        last = { session_id: delivery.session_id, reason: err.detail };
        result.skipped.push(last);
      }
    }
    onEach(index + 1, found.length, last);
  }
  return result;
}
