/**
 * Queries about agents: the entity repository scoped the way the routes need it, and the SQL the
 * workflows, pull work and live battles run on `agents` (dispatch, gym, push failures, Elo).
 */
import { EntityRepository, type EntityManager } from '@mikro-orm/postgresql';
import { ONLINE_WINDOW_SECONDS, type AgentMode } from '../../../domain/agent-state';
import type { Agent } from '../entities/agent.entity';
import { onlyRow, run } from './sql';

export class AgentRepository extends EntityRepository<Agent> {
  /**
   * An agent only if `ownerId` owns it: not owned and missing look the same to callers. Found by its
   * primary key, so a second look in the same request (a website form, then its use case) comes
   * from the identity map, not the database.
   */
  async findOwned(agentId: number, ownerId: number): Promise<Agent | null> {
    const agent = await this.findOne(agentId);
    return agent?.owner.id === ownerId ? agent : null;
  }

  listOwned(ownerId: number): Promise<Agent[]> {
    return this.find({ owner: ownerId }, { orderBy: { id: 'asc' } });
  }

  countOwned(ownerId: number): Promise<number> {
    return this.count({ owner: ownerId });
  }
}

/**
 * isAgentOnline in SQL, over `agents a`: active, and a pull agent seen within the online window, or
 * a push or A2A agent whose last ping or delivery succeeded.
 */
const ONLINE_SQL = `(not a.deactivated and ((a.mode in ('push', 'a2a') and a.ping_ok and a.consecutive_failures = 0)
    or (a.mode = 'pull' and a.last_seen_at > now() - interval '${ONLINE_WINDOW_SECONDS} seconds')))`;

/**
 * Records that an agent showed it can answer (a poll, a result, a passing ping, an answer). Written
 * at most once a second per agent: thousands of runners poll, and a second more says nothing.
 */
export async function markAgentSeen(em: EntityManager, agentId: number): Promise<void> {
  await run(
    em,
    `update agents set last_seen_at = now()
     where id = ? and (last_seen_at is null or last_seen_at < now() - interval '1 second')`,
    [agentId],
  );
}

export interface EligibleAgent {
  id: number;
  owner_id: number;
  mode: AgentMode;
}

/**
 * Agents a live battle may pick: online (a person waits on the answer), (gym-complete,) not of the
 * excluded owners nor of an owner in the excluded registration cluster (the judge's: accounts registered together), and whose
 * latest ended delivery (of any kind; pending and cancelled ones say nothing) was a non-empty answer.
 */
export async function eligibleAgents(
  em: EntityManager,
  requireGym: boolean,
  exclude: { ownerIds: readonly number[]; cluster?: number },
): Promise<EligibleAgent[]> {
  return run<EligibleAgent>(
    em,
    `select a.id, a.owner_id, a.mode from agents a
     join users o on o.id = a.owner_id
     join lateral (
       select s.status, s.response from sessions s
       where s.agent_id = a.id and s.status in ('answered', 'error', 'timeout')
       order by s.id desc limit 1) latest on true
     where ${ONLINE_SQL} and (a.gym_complete or not ?)
       and a.owner_id <> all(?::int[]) and coalesce(o.registration_cluster, o.id) is distinct from ?::int
       and latest.status = 'answered' and length(trim(latest.response)) > 0
     order by random() limit 200`,
    [requireGym, `{${exclude.ownerIds.join(',')}}`, exclude.cluster ?? null],
  );
}

/** What makes an agent due a main prompt; `asOf` (a timestamp as PostgreSQL gave it) pins "now" for a whole step. */
export interface DueRules {
  requireGym: boolean;
  minGapSeconds: number;
  asOf?: string | null;
}

/**
 * Agents due a main prompt as of a moment: online, or a push agent in a run of failed deliveries
 * (its next prompt is what either ends the run or, at the failure rule's limit, makes it inactive;
 * without it one failed delivery would keep a push agent out until its owner retests),
 * (gym-complete,) no pool prompt in flight, the gap
 * since their last pool prompt passed, and some pool prompt left that they never got (an agent that
 * has had them all would otherwise stay first in line for ever and take a place in every batch).
 * Live battles' prompts (main sessions too) neither hold an agent's turn nor restart its gap: anyone
 * can start a live battle, and they would otherwise stall pool dispatch for every agent they reach.
 * Parameters: asOf (null: now), requireGym, asOf, minGapSeconds. Each agent's last prompt comes from
 * sessions_main_agent_index; "a prompt left" is a lateral with a limit, so it stays a probe of
 * sessions_main_prompt_unique per agent (as an EXISTS PostgreSQL hashes every main session, and
 * past work_mem that is a scan of the table per agent). A redelivery repeats its original's
 * prompt, so the originals alone say which prompts an agent got. Order the rows by DUE_ORDER.
 */
export const DUE_AGENTS_SQL = `select a.id, a.mode, m.last_at from agents a
  left join lateral (select s.created_at as last_at from sessions s join prompts lp on lp.id = s.prompt_id
    where s.agent_id = a.id and s.kind = 'main' and lp.source <> 'live' order by s.created_at desc limit 1) m on true
  cross join lateral (
    select 1 from prompts p where p.source = 'pool' and p.retired_at is null
      and not exists (select 1 from sessions s
        where s.agent_id = a.id and s.prompt_id = p.id and s.kind = 'main' and s.redelivery_of_id is null)
    limit 1) prompt_left
  where not a.deactivated and (a.mode in ('push', 'a2a') and a.ping_ok
      or a.mode = 'pull' and a.last_seen_at > coalesce(?::timestamptz, now()) - interval '${ONLINE_WINDOW_SECONDS} seconds')
    and (a.gym_complete or not ?)
    and (m.last_at is null or m.last_at <= coalesce(?::timestamptz, now()) - make_interval(secs => ?))
    and not exists (select 1 from sessions s join prompts fp on fp.id = s.prompt_id
      where s.agent_id = a.id and s.kind = 'main' and s.status = 'pending' and fp.source <> 'live')`;

/** Never-served agents first, then the longest since their last main prompt; the id settles ties. */
export const DUE_ORDER = 'last_at asc nulls first, id';

export function dueParams(rules: DueRules): unknown[] {
  return [rules.asOf ?? null, rules.requireGym, rules.asOf ?? null, rules.minGapSeconds];
}

/**
 * How many agents are due now, and how long the one due longest has waited past its gap (0 when
 * none has; agents never served have no last prompt to count from, and are first in line anyway).
 */
export interface DueSummary {
  due: number;
  /** The moment counted, as PostgreSQL gave it: a dispatch step serves the agents due then. */
  as_of: string;
  as_of_ms: number;
  longest_wait_seconds: number;
}

export async function dueAgentsSummary(em: EntityManager, rules: DueRules): Promise<DueSummary> {
  const rows = await run<DueSummary>(
    em,
    `select count(*)::int as due, now()::text as as_of, (extract(epoch from now()) * 1000)::float8 as as_of_ms,
       greatest(coalesce(extract(epoch from now() - min(last_at)) - ?, 0), 0)::float8 as longest_wait_seconds
     from (${DUE_AGENTS_SQL}) due`,
    [rules.minGapSeconds, ...dueParams(rules)],
  );
  return onlyRow(rows, 'dueAgentsSummary');
}

/** What a call signed with the agent's secret needs of its agent (a pull runner's, or a coding step's in either mode), and no entity. */
export interface AgentCredentialsRow {
  id: number;
  secret_hash: string;
  mode: string;
  deactivated: boolean;
  /** With `lookAtQueue`: whether the agent has queued work. */
  queued?: boolean;
}

/** The agent a call names, in either mode, to check its secret (and, with `lookAtQueue`, whether it has queued pull work, in the same query). */
export async function findAgentCredentials(
  em: EntityManager,
  agentId: number,
  { lookAtQueue = false } = {},
): Promise<AgentCredentialsRow | undefined> {
  const queued = lookAtQueue
    ? `, exists(select 1 from work_items w where w.agent_id = a.id and w.state = 'queued') as queued`
    : '';
  const [row] = await run<AgentCredentialsRow>(
    em,
    `select a.id, a.secret_hash, a.mode, a.deactivated${queued} from agents a where a.id = ?`,
    [agentId],
  );
  return row;
}

export interface GymAgentRow {
  mode: AgentMode;
  deactivated: boolean;
  ping_ok: boolean;
  gym_attempt: number;
  /** Passed back to PostgreSQL as it came (text). */
  gym_started_at: string | null;
}

export async function gymStateOf(em: EntityManager, agentId: number): Promise<GymAgentRow | undefined> {
  const [row] = await run<GymAgentRow>(
    em,
    `select mode, deactivated, ping_ok, gym_attempt, gym_started_at from agents where id = ?`,
    [agentId],
  );
  return row;
}

/** Marks the gym complete, unless a restart superseded this attempt or it is complete already. */
export async function markGymComplete(em: EntityManager, agentId: number, attempt: number): Promise<void> {
  await run(
    em,
    `update agents set gym_complete = true, gym_completed_at = now() where id = ? and gym_attempt = ? and not gym_complete`,
    [agentId, attempt],
  );
}

/** A good answer ends a push agent's run of failures. */
export async function endPushFailureRun(em: EntityManager, agentId: number): Promise<void> {
  await run(
    em,
    `update agents set consecutive_failures = 0, failing_since = null where id = ? and consecutive_failures > 0`,
    [agentId],
  );
}

export interface PushFailureRun {
  failures: number;
  span_seconds: number;
  ping_ok: boolean;
  deactivated: boolean;
}

/** Adds a failure to the agent's run; undefined when the agent is gone. */
export async function extendPushFailureRun(em: EntityManager, agentId: number): Promise<PushFailureRun | undefined> {
  const [row] = await run<PushFailureRun>(
    em,
    `update agents set consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, now())
     where id = ?
     returning consecutive_failures as failures, extract(epoch from now() - failing_since)::float8 as span_seconds, ping_ok, deactivated`,
    [agentId],
  );
  return row;
}

/** Makes a push agent inactive, with the reason its owner reads as `ping_error`. */
export async function makePushAgentInactive(em: EntityManager, agentId: number, reason: string): Promise<void> {
  await run(em, `update agents set ping_ok = false, ping_error = ? where id = ?`, [reason, agentId]);
}

/**
 * Locks agents in id order (so two votes, or a vote and a void, on overlapping agents cannot
 * deadlock) and reads their Elo.
 */
export function lockElos(em: EntityManager, agentIds: readonly number[]): Promise<Array<{ id: number; elo: number }>> {
  return run<{ id: number; elo: number }>(
    em,
    `select id, elo from agents where id = any(?::int[]) order by id for update`,
    [`{${agentIds.join(',')}}`],
  );
}

export async function setElo(em: EntityManager, agentId: number, elo: number): Promise<void> {
  await run(em, `update agents set elo = ? where id = ?`, [elo, agentId]);
}
