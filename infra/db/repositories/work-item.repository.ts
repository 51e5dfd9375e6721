/** The owner of `work_items` (pull deliveries): queueing, leasing, releasing and settling them, and waking long-polls. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryKind, WorkItemState } from '../../../domain/deliveries';
import { WORK_CHANNEL } from '../work-channel';
import { onlyRow, run } from './sql';

/** Queues a pull delivery (once) and wakes the agent's waiting long-polls, in any API process. */
export async function queueWorkItem(em: EntityManager, sessionId: number): Promise<void> {
  await run(
    em,
    `with queued as (
       insert into work_items (session_id, agent_id, state, created_at)
       select id, agent_id, 'queued', now() from sessions where id = ?
       on conflict (session_id) do nothing
       returning agent_id)
     select pg_notify(?, agent_id::text) from queued`,
    [sessionId, WORK_CHANNEL],
  );
}

export interface ClaimedWork {
  id: number;
  kind: DeliveryKind;
  category: string;
  prompt_id: number;
  text: string;
  /**
   * The runner's deadline, in whole seconds: a prompt's whole deadline, which counts from this lease;
   * for a coding session, what is left of the session (at least 1).
   */
  remaining_seconds: number;
  redelivery_of_id: number | null;
  /** Whether the item is a coding session (whose payload names its sandbox). */
  coding: boolean;
}

/**
 * Leases the agent's oldest queued item that is still pending; concurrent polls skip each other's
 * rows. Called when work is known or announced to be queued: an empty queue returns undefined.
 */
export async function claimWork(em: EntityManager, agentId: number): Promise<ClaimedWork | undefined> {
  const [row] = await run<ClaimedWork>(
    em,
    `with claimed as (
       update work_items w set state = 'leased', leased_at = now()
       where w.session_id = (
         select q.session_id from work_items q join sessions qs on qs.id = q.session_id
         where q.agent_id = ? and q.state = 'queued' and qs.status = 'pending'
         order by q.session_id limit 1 for update of q skip locked)
       returning w.session_id)
     select s.id, s.kind, s.category, p.id as prompt_id, p.text, s.redelivery_of_id,
       cs.session_id is not null as coding,
       case when cs.session_id is not null
         then greatest(1, floor(s.deadline_seconds - extract(epoch from now() - s.created_at)))::int
         else s.deadline_seconds end as remaining_seconds
     from claimed c join sessions s on s.id = c.session_id join prompts p on p.id = s.prompt_id
       left join coding_sessions cs on cs.session_id = s.id`,
    [agentId],
  );
  return row;
}

/** Puts a just-leased item back, for a long-poll whose client left before it could be answered, and wakes the agent's other long-polls. */
export async function releaseWork(em: EntityManager, sessionId: number): Promise<void> {
  await run(
    em,
    `with released as (update work_items set state = 'queued', leased_at = null where session_id = ? and state = 'leased' returning agent_id)
     select pg_notify(?, agent_id::text) from released`,
    [sessionId, WORK_CHANNEL],
  );
}

/**
 * At a pull delivery's deadline counted from its start: an item no runner has leased is expired
 * there and then (none can take it after this), and 0 is returned; for a leased item, what is left
 * of its deadline counted from the lease, in milliseconds (0 once it has passed). The item's row is
 * locked first, so a lease in progress is either seen or refused.
 */
export async function closeUnleasedWork(
  em: EntityManager,
  sessionId: number,
  deadlineSeconds: number,
): Promise<number> {
  return em.transactional(async (tx) => {
    const [item] = await run<{ state: WorkItemState; left_ms: number | null }>(
      tx,
      `select state, (extract(epoch from leased_at + make_interval(secs => ?) - clock_timestamp()) * 1000)::float8 as left_ms
       from work_items where session_id = ? for update`,
      [deadlineSeconds, sessionId],
    );
    if (item?.state === 'queued') {
      await run(tx, `update work_items set state = 'expired' where session_id = ?`, [sessionId]);
      return 0;
    }
    return item?.state === 'leased' ? Math.max(0, Math.ceil(item.left_ms ?? 0)) : 0;
  });
}

/** Ends a work item still queued or leased, once its delivery has an outcome. */
export async function settleWork(
  em: EntityManager,
  sessionId: number,
  state: Extract<WorkItemState, 'completed' | 'expired'>,
): Promise<void> {
  await run(em, `update work_items set state = ? where session_id = ? and state in ('queued', 'leased')`, [
    state,
    sessionId,
  ]);
}

/**
 * The retention of work items: deletes up to `batch` settled items whose delivery ended more than
 * `days` ago. The delivery keeps its outcome, latency and result hash; the item only told a runner
 * what to take. Returns how many went.
 */
export async function deleteSettledWork(em: EntityManager, days: number, batch: number): Promise<number> {
  const rows = await run<{ session_id: number }>(
    em,
    `delete from work_items where session_id in (
       select w.session_id from work_items w join sessions s on s.id = w.session_id
       where w.state in ('completed', 'expired') and s.completed_at < now() - make_interval(days => ?)
       order by w.session_id limit ? for update of w skip locked)
     returning session_id`,
    [days, batch],
  );
  return rows.length;
}

/** Work items queued and not yet handed to a runner, over all agents. */
export async function queuedWorkCount(em: EntityManager): Promise<number> {
  const rows = await run<{ n: number }>(em, `select count(*)::int as n from work_items where state = 'queued'`);
  return onlyRow(rows, 'queued work count').n;
}
