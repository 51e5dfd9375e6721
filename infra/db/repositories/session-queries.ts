/** SQL behind the feed, pull work and gym progress: each query is served by an index. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AgentMode } from '../../../domain/agent-state';
import type { SessionKind, SessionStatus } from '../../../domain/sessions';
import { WORK_CHANNEL } from '../work-channel';

export interface SessionRow {
  id: number;
  agent_id: number;
  kind: SessionKind;
  mode: AgentMode;
  category: string;
  prompt: string;
  response: string | null;
  error: string | null;
  /** The owner's version of `error`, where it differs; never shown to anyone else. */
  error_detail: string | null;
  latency_ms: number | null;
  status: SessionStatus;
  created_ms: number;
  deadline_seconds: number;
  result_hash: string | null;
  work_state: string | null;
  /** Set on an operator's redelivery: the original session's id. */
  redelivery_of_id: number | null;
}

// Raw queries get timestamps as text; epoch milliseconds come back as plain numbers.
const SESSION_COLUMNS = `s.id, s.agent_id, s.kind, s.mode, s.category, p.text as prompt, s.response, s.error, s.error_detail, s.latency_ms, s.status,
  (extract(epoch from s.created_at) * 1000)::float8 as created_ms, s.deadline_seconds, s.result_hash, w.state as work_state,
  s.redelivery_of_id`;
const SESSION_FROM = `sessions s join prompts p on p.id = s.prompt_id left join work_items w on w.session_id = s.id`;

export async function findSession(em: EntityManager, agentId: number, sessionId: number): Promise<SessionRow | undefined> {
  const [row] = await em.getConnection().execute<SessionRow[]>(
    `select ${SESSION_COLUMNS} from ${SESSION_FROM} where s.id = ? and s.agent_id = ?`,
    [sessionId, agentId],
  );
  return row;
}

/**
 * The public feed's two statements, run side by side: the agent's name with its session count
 * (parameter: agent id; no row: no such agent), and one page, newest first from the (agent_id, id)
 * index (parameters: agent id, limit, offset).
 */
export const FEED_HEAD_SQL = `select a.name, a.owner_id, (select count(*)::int from sessions where agent_id = a.id) as total from agents a where a.id = ?`;
export const FEED_PAGE_SQL = `select ${SESSION_COLUMNS} from ${SESSION_FROM} where s.agent_id = ? order by s.id desc limit ? offset ?`;

export interface AgentFeed {
  agentName: string;
  /** The owner reads more of the feed than the public (the detail of failures). */
  ownerId: number;
  total: number;
  rows: SessionRow[];
}

/** An agent's name, session count and one page of its feed; undefined when the agent does not exist. */
export async function agentFeed(em: EntityManager, agentId: number, limit: number, offset: number): Promise<AgentFeed | undefined> {
  const conn = em.getConnection();
  const [[head], rows] = await Promise.all([
    conn.execute<Array<{ name: string; owner_id: number; total: number }>>(FEED_HEAD_SQL, [agentId]),
    conn.execute<SessionRow[]>(FEED_PAGE_SQL, [agentId, limit, offset]),
  ]);
  return head && { agentName: head.name, ownerId: head.owner_id, total: head.total, rows };
}

export interface ClaimedWork {
  id: number;
  kind: SessionKind;
  category: string;
  prompt_id: number;
  text: string;
  /** What is left of the deadline, in whole seconds (at least 1). */
  remaining_seconds: number;
  redelivery_of_id: number | null;
}

/**
 * Leases the agent's oldest queued item that is still pending; concurrent polls skip each other's
 * rows. Called when work is known or announced to be queued: an empty queue returns undefined.
 */
export async function claimWork(em: EntityManager, agentId: number): Promise<ClaimedWork | undefined> {
  const [row] = await em.getConnection().execute<ClaimedWork[]>(
    `with claimed as (
       update work_items w set state = 'leased', leased_at = now()
       where w.session_id = (
         select q.session_id from work_items q join sessions qs on qs.id = q.session_id
         where q.agent_id = ? and q.state = 'queued' and qs.status = 'pending'
         order by q.session_id limit 1 for update of q skip locked)
       returning w.session_id)
     select s.id, s.kind, s.category, p.id as prompt_id, p.text, s.redelivery_of_id,
       greatest(1, floor(s.deadline_seconds - extract(epoch from now() - s.created_at)))::int as remaining_seconds
     from claimed c join sessions s on s.id = c.session_id join prompts p on p.id = s.prompt_id`,
    [agentId],
  );
  return row;
}

/** Puts a just-leased item back, for a long-poll whose client left before it could be answered, and wakes the agent's other long-polls. */
export async function releaseWork(em: EntityManager, sessionId: number): Promise<void> {
  await em.getConnection().execute(
    `with released as (update work_items set state = 'queued', leased_at = null where session_id = ? and state = 'leased' returning agent_id)
     select pg_notify(?, agent_id::text) from released`,
    [sessionId, WORK_CHANNEL],
  );
}

export interface GymCounts {
  total: number;
  done: number;
  errors: number;
}

/** `done`: gym prompts with a good answer since the current attempt started; `errors`: gym sessions that errored since then. */
export async function gymCounts(em: EntityManager, agentId: number, startedAt: Date | null): Promise<GymCounts> {
  const [row] = await em.getConnection().execute<GymCounts[]>(
    `select (select count(*) from prompts where source = 'gym')::int as total,
       (select count(distinct prompt_id) from sessions
         where agent_id = ? and kind = 'gym' and status = 'answered' and created_at >= ?)::int as done,
       (select count(*) from sessions
         where agent_id = ? and kind = 'gym' and status = 'error' and created_at >= ?)::int as errors`,
    [agentId, startedAt, agentId, startedAt],
  );
  return row;
}
