/**
 * The owner of `sessions` (deliveries): every insert and update of the table, and the reads the
 * workflows make of it (the feed's and gym progress's are in delivery-read.repository.ts).
 */
import type { EntityManager, RequiredEntityData } from '@mikro-orm/postgresql';
import type { AgentMode } from '../../../domain/agent-state';
import type { DeliveryKind, DeliveryStatus, WrittenDelivery } from '../../../domain/deliveries';
import { Delivery } from '../entities/delivery.entity';
import { DUE_AGENTS_SQL, DUE_ORDER, dueParams, type DueRules } from './agent.repository';
import { onlyRow, run } from './sql';

const WRITTEN_COLUMNS = 'id, agent_id, kind, mode, category, deadline_seconds';

/** A delivery written in the use case's unit of work (flushed), as the front door starts it. */
export function writtenDelivery(session: Delivery): WrittenDelivery {
  return {
    id: session.id,
    agent_id: session.agent.id,
    kind: session.kind,
    mode: session.mode,
    category: session.category,
    deadline_seconds: session.deadlineSeconds,
  };
}

/**
 * The main sessions a dispatch batch already created (their dedupe keys start with `keyPrefix`), in
 * the order they were made. Only ids above `afterId` are looked at: a step passes the last id before
 * it began, so the check reads the step's own rows, not the whole table.
 */
export function mainDeliveriesOfDispatch(
  em: EntityManager,
  keyPrefix: string,
  afterId = 0,
): Promise<WrittenDelivery[]> {
  return run<WrittenDelivery>(
    em,
    `select ${WRITTEN_COLUMNS} from sessions where id > ? and dedupe_key like ? order by id`,
    [afterId, `${keyPrefix}%`],
  );
}

/** The highest session id so far (0 for none): every session made later has a higher one. */
export async function lastDeliveryId(em: EntityManager): Promise<number> {
  const rows = await run<{ id: number }>(em, `select coalesce(max(id), 0)::int as id from sessions`);
  return onlyRow(rows, 'lastDeliveryId').id;
}

/**
 * One batch of a dispatch step in one statement: the `limit` agents due first (as of `rules.asOf`)
 * each get a main session for a pool prompt they never got (one with exactly one answer first, so a
 * battle forms at once, then unanswered ones, at random among equals), keyed
 * `<keyPrefix><agent id>`. Returns the sessions in the order the agents were due. Run it in the
 * batch's transaction, after checking that the key prefix has no sessions yet.
 */
export function insertMainDeliveryBatch(
  em: EntityManager,
  input: DueRules & { limit: number; deadlineSeconds: number; keyPrefix: string },
): Promise<WrittenDelivery[]> {
  return run<WrittenDelivery>(
    em,
    `with due as (select * from (${DUE_AGENTS_SQL}) d order by ${DUE_ORDER} limit ?),
     made as (
       insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, dedupe_key, created_at)
       select due.id, 'main', p.id, due.mode, p.category, ?, 'pending', ? || due.id, now()
       from due cross join lateral (
         select p.id, p.category from prompts p
         where p.source = 'pool' and p.retired_at is null
           and not exists (select 1 from sessions s where s.agent_id = due.id and s.prompt_id = p.id and s.kind = 'main')
         order by case p.answer_count when 1 then 0 when 0 then 1 else 2 end, random()
         limit 1) p
       returning ${WRITTEN_COLUMNS})
     select made.* from made join due on due.id = made.agent_id order by due.last_at asc nulls first, due.id`,
    [...dueParams(input), input.limit, input.deadlineSeconds, input.keyPrefix],
  );
}

/**
 * A gym session, once per dedupe key: a second call returns the same session. Undefined when the
 * agent is deactivated or its gym attempt is no longer `attempt`.
 */
export async function insertGymDelivery(
  em: EntityManager,
  input: { agentId: number; promptId: number; attempt: number; deadlineSeconds: number; dedupeKey: string },
): Promise<WrittenDelivery | undefined> {
  const [row] = await run<WrittenDelivery>(
    em,
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, dedupe_key, created_at)
     select a.id, 'gym', p.id, a.mode, p.category, ?, 'pending', ?, now()
     from agents a, prompts p
     where a.id = ? and p.id = ? and not a.deactivated and a.gym_attempt = ?
     on conflict (dedupe_key) do update set dedupe_key = excluded.dedupe_key
     returning ${WRITTEN_COLUMNS}`,
    [input.deadlineSeconds, input.dedupeKey, input.agentId, input.promptId, input.attempt],
  );
  return row;
}

/** The fields a use case gives a new delivery; the rest take their defaults (pending, no answer). */
export type NewDelivery = Pick<
  RequiredEntityData<Delivery>,
  'agent' | 'kind' | 'prompt' | 'mode' | 'category' | 'deadlineSeconds' | 'redeliveryOf'
>;

/** A new delivery in the use case's unit of work: inserted by its next flush, with the prompt (and battle) it goes with. */
export function addDelivery(em: EntityManager, fields: NewDelivery): Delivery {
  return em.create(Delivery, fields);
}

/**
 * Closes deliveries whose workflow could not be started, as the arena's own failure, so no feed
 * shows them pending for ever: nothing will deliver them. What hangs on them closes with them: a
 * coding session's record (not the agent's fault) and a live battle (void). Rows a workflow has
 * already moved on from pending are left to it.
 */
export async function closeUnstartedDeliveries(
  em: EntityManager,
  ids: readonly number[],
  error: string,
): Promise<void> {
  if (ids.length === 0) return;
  await run(
    em,
    `with closed as (
       update sessions set status = 'error', error = ?, latency_ms = 0, completed_at = now()
       where id in (${ids.map(() => '?').join(', ')}) and status = 'pending' returning id),
     coding as (
       update coding_sessions c set arena_fault = true, ended_at = now() from closed where c.session_id = closed.id)
     update battles b set status = 'void' from closed
     where b.live and b.status = 'running' and closed.id in (b.session_a_id, b.session_b_id)`,
    [error, ...ids],
  );
}

/** Of these sessions, the ones an operator's later redelivery already repeats (of the same original). */
export function laterRedeliveries(
  em: EntityManager,
  sessionIds: readonly number[],
): Promise<Array<{ id: number; kind: DeliveryKind }>> {
  return run<{ id: number; kind: DeliveryKind }>(
    em,
    `select s.id, s.kind from sessions s
     where s.id in (${sessionIds.map(() => '?').join(', ')})
       and exists (select 1 from sessions later where later.redelivery_of_id = coalesce(s.redelivery_of_id, s.id) and later.id > s.id)`,
    sessionIds,
  );
}

/** A push delivery claimed for sending, with what the POST needs. */
export interface ClaimedPush {
  id: number;
  kind: DeliveryKind;
  category: string;
  deadline_seconds: number;
  prompt_id: number;
  text: string;
  mode: AgentMode;
  webhook_url: string | null;
  /** An A2A agent's card as its last ping read it. */
  a2a_card: Record<string, unknown> | null;
  secret_sealed: string;
  deactivated: boolean;
  redelivery_of_id: number | null;
}

/** Marks a pending push delivery `sending` (at most once); undefined when it was claimed before or is settled. */
export async function claimPush(em: EntityManager, sessionId: number): Promise<ClaimedPush | undefined> {
  const [row] = await run<ClaimedPush>(
    em,
    `update sessions s set push_state = 'sending', sent_at = now()
     from agents a, prompts p
     where s.id = ? and s.status = 'pending' and s.push_state is null and a.id = s.agent_id and p.id = s.prompt_id
     returning s.id, s.kind, s.category, s.deadline_seconds, p.id as prompt_id, p.text, a.mode, a.webhook_url, a.a2a_card, a.secret_sealed, a.deactivated,
       s.redelivery_of_id`,
    [sessionId],
  );
  return row;
}

/** Releases a push claim whose request provably never left, noting why it failed. */
export async function releasePush(
  em: EntityManager,
  input: { sessionId: number; error: string; errorDetail: string },
): Promise<void> {
  await run(
    em,
    `update sessions set push_state = null, sent_at = null, error = ?, error_detail = ? where id = ? and status = 'pending'`,
    [input.error, input.errorDetail, input.sessionId],
  );
}

/** The columns a delivery's outcome writes (from its Settlement). */
export interface OutcomeRow {
  status: DeliveryStatus;
  response: string | null;
  error: string | null;
  /** Only where the owner's version differs from the public one. */
  errorDetail: string | null;
  /** Null for a pulled result: its latency counts from the lease, read in the same statement. */
  latencyMs: number | null;
  /** A pulled result's arrival (epoch ms): the latency is this minus the lease (0 when never leased). */
  receivedAt: number | null;
  agentLatencyMs: number | null;
  resultHash: string | null;
  /** A missed deadline after never-sent attempts keeps the last attempt's cause in the message. */
  keepLastAttempt: boolean;
}

/** What the outcome's write returns: what the activity needs to count and log it. */
export interface RecordedRow {
  status: DeliveryStatus;
  mode: AgentMode;
  agent_id: number;
  /** The owner's version of the error. */
  error: string | null;
  latency_ms: number;
}

/** Writes the outcome of a pending delivery; undefined when it was settled already. */
export async function recordDeliveryOutcome(
  em: EntityManager,
  sessionId: number,
  outcome: OutcomeRow,
): Promise<RecordedRow | undefined> {
  // A pulled result's latency is read from its lease here, in the same statement.
  const latency =
    outcome.latencyMs === null
      ? `coalesce((select greatest(0, round(?::float8 - extract(epoch from w.leased_at) * 1000))::int
           from work_items w where w.session_id = sessions.id), 0)`
      : '?';
  // An answer shows its agent can answer: it is seen then (isAgentOnline), in the same statement.
  const [row] = await run<RecordedRow>(
    em,
    `with recorded as (
       update sessions set status = ?, response = ?, agent_latency_ms = ?, result_hash = ?, completed_at = now(),
         latency_ms = ${latency},
         error = case when ? and error is not null then ? || '; last attempt: ' || error else ? end,
         error_detail = case when ? and error is not null then ? || '; last attempt: ' || coalesce(error_detail, error) else ? end
       where id = ? and status = 'pending' returning status, mode, agent_id, coalesce(error_detail, error) as error, latency_ms),
     seen as (
       update agents a set last_seen_at = now() from recorded r
       where a.id = r.agent_id and r.status = 'answered'
         and (a.last_seen_at is null or a.last_seen_at < now() - interval '1 second'))
     select * from recorded`,
    [
      outcome.status,
      outcome.response,
      outcome.agentLatencyMs,
      outcome.resultHash,
      outcome.latencyMs ?? outcome.receivedAt,
      outcome.keepLastAttempt,
      outcome.error,
      outcome.error,
      outcome.keepLastAttempt,
      outcome.error,
      outcome.errorDetail,
      sessionId,
    ],
  );
  return row;
}

/** A main answer just recorded enters judging: its text stays out of public view for `days` at most. */
export async function startJudging(em: EntityManager, sessionId: number, days: number): Promise<void> {
  await run(
    em,
    `update sessions set judging_until = now() + make_interval(days => ?) where id = ? and kind = 'main' and status = 'answered'`,
    [days, sessionId],
  );
}

/**
 * These answers leave judging now: their votes are in. `judging_until` keeps the moment (never
 * null): a vote counts only when cast before its answers left judging, and a null would read as
 * neither in nor out of it.
 */
export async function endJudging(em: EntityManager, sessionIds: readonly number[]): Promise<void> {
  for (const id of sessionIds) {
    await run(em, `update sessions set judging_until = now() where id = ? and judging_until > now()`, [id]);
  }
}

/** A session's status. The session a workflow names exists unless its agent was deleted; then this throws. */
export async function deliveryStatus(em: EntityManager, sessionId: number): Promise<DeliveryStatus> {
  const rows = await run<{ status: DeliveryStatus }>(em, `select status from sessions where id = ?`, [sessionId]);
  return onlyRow(rows, `status of session ${sessionId}`).status;
}
