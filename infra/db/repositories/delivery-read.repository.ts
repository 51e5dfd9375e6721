/**
 * What the feed and gym progress read of `sessions` (writes are in delivery.repository.ts, the
 * table's one writer). Each read is served by an index.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AgentMode } from '../../../domain/agent-state';
import type { DeliveryKind, DeliveryStatus } from '../../../domain/deliveries';
import { onlyRow, run } from './sql';

export interface DeliveryRow {
  id: number;
  agent_id: number;
  kind: DeliveryKind;
  mode: AgentMode;
  category: string;
  prompt: string;
  response: string | null;
  error: string | null;
  /** The owner's version of `error`, where it differs; never shown to anyone else. */
  error_detail: string | null;
  latency_ms: number | null;
  status: DeliveryStatus;
  created_ms: number;
  deadline_seconds: number;
  result_hash: string | null;
  work_state: string | null;
  /** Set on an operator's redelivery: the original session's id. */
  redelivery_of_id: number | null;
  /** A main answer still being judged: only its owner may read the text yet. */
  in_judging: boolean;
}

// Raw queries get timestamps as text; epoch milliseconds come back as plain numbers. `in_judging` is a
// column of the row, not a query of its own, so the feed costs the same with the embargo.
const SESSION_COLUMNS = `s.id, s.agent_id, s.kind, s.mode, s.category, p.text as prompt, s.response, s.error, s.error_detail, s.latency_ms, s.status,
  (extract(epoch from s.created_at) * 1000)::float8 as created_ms, s.deadline_seconds, s.result_hash, w.state as work_state,
  s.redelivery_of_id, coalesce(s.judging_until > now(), false) as in_judging`;
const SESSION_FROM = `sessions s join prompts p on p.id = s.prompt_id left join work_items w on w.session_id = s.id`;

export async function findDelivery(
  em: EntityManager,
  agentId: number,
  sessionId: number,
): Promise<DeliveryRow | undefined> {
  const [row] = await run<DeliveryRow>(
    em,
    `select ${SESSION_COLUMNS} from ${SESSION_FROM} where s.id = ? and s.agent_id = ?`,
    [sessionId, agentId],
  );
  return row;
}

/**
 * An arena answer not yet judged: a main delivery still pending, or answered and in judging. The
 * public feed leaves it out whole (its prompt, category and timing included), so nobody can tie a
 * battle's prompt to its agent before the vote; only the agent's owner reads it. Never null: a
 * session with no judging end (an error, or judging ended before the end was kept) is out of
 * judging, where a bare comparison would be null and `not (...)` would leave it out for good.
 */
const WITHHELD_FROM_PUBLIC = `s.kind = 'main' and (s.status = 'pending' or coalesce(s.judging_until > now(), false))`;

/**
 * The feed's two statements, run side by side: the agent's name with the count of sessions the
 * viewer may see (parameters: viewer id, agent id; no row: no such agent), and one page of them,
 * newest first from the (agent_id, id) index (parameters: agent id, agent id, viewer id, limit,
 * offset). The viewer is the account asking (0 for nobody): its owner sees every session.
 */
export const FEED_HEAD_SQL = `select a.name, a.owner_id,
  (select count(*)::int from sessions s where s.agent_id = a.id and (a.owner_id = ? or not (${WITHHELD_FROM_PUBLIC}))) as total
  from agents a where a.id = ?`;
export const FEED_PAGE_SQL = `select ${SESSION_COLUMNS} from ${SESSION_FROM}
  where s.agent_id = ? and (exists (select 1 from agents o where o.id = ? and o.owner_id = ?) or not (${WITHHELD_FROM_PUBLIC}))
  order by s.id desc limit ? offset ?`;

export interface AgentFeed {
  agentName: string;
  /** The owner reads more of the feed than the public (answers not yet judged, the detail of failures). */
  ownerId: number;
  total: number;
  rows: DeliveryRow[];
}

/**
 * An agent's name, the count of the sessions `viewerId` may see and one page of them; undefined
 * when the agent does not exist. `viewerId` is the account asking, if any.
 */
export async function agentFeed(
  em: EntityManager,
  agentId: number,
  limit: number,
  offset: number,
  viewerId: number | undefined,
): Promise<AgentFeed | undefined> {
  const viewer = viewerId ?? 0;
  const [[head], rows] = await Promise.all([
    run<{ name: string; owner_id: number; total: number }>(em, FEED_HEAD_SQL, [viewer, agentId]),
    run<DeliveryRow>(em, FEED_PAGE_SQL, [agentId, agentId, viewer, limit, offset]),
  ]);
  return head && { agentName: head.name, ownerId: head.owner_id, total: head.total, rows };
}

export interface GymCounts {
  total: number;
  done: number;
  errors: number;
}

/** `done`: gym prompts with a good answer since the current attempt started; `errors`: gym sessions that errored since then. */
export async function gymCounts(em: EntityManager, agentId: number, startedAt: Date | null): Promise<GymCounts> {
  const rows = await run<GymCounts>(
    em,
    `select (select count(*) from prompts where source = 'gym')::int as total,
       (select count(distinct prompt_id) from sessions
         where agent_id = ? and kind = 'gym' and status = 'answered' and created_at >= ?)::int as done,
       (select count(*) from sessions
         where agent_id = ? and kind = 'gym' and status = 'error' and created_at >= ?)::int as errors`,
    [agentId, startedAt, agentId, startedAt],
  );
  return onlyRow(rows, 'gym counts');
}

/** Gym prompts without a good answer from this agent since its attempt started (`startedAt` as PostgreSQL gave it). */
export async function gymPromptsStillOpen(
  em: EntityManager,
  agentId: number,
  startedAt: string | null,
): Promise<number[]> {
  const rows = await run<{ id: number }>(
    em,
    `select p.id from prompts p
     where p.source = 'gym' and not exists (
       select 1 from sessions s
       where s.agent_id = ? and s.prompt_id = p.id and s.kind = 'gym' and s.status = 'answered' and s.created_at >= ?)
     order by p.id`,
    [agentId, startedAt],
  );
  return rows.map((r) => r.id);
}
