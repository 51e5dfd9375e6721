/**
 * Queries about agents: the entity repository scoped the way the routes need it, and the SQL the
 * workflows, pull work and live battles run on `agents` (dispatch, gym, push failures, Elo).
 */
import { EntityRepository, type EntityManager } from '@mikro-orm/postgresql';
import type { AgentMode } from '../../../domain/agent-state';
import type { Agent } from '../entities/agent.entity';
import { run } from './sql';

export class AgentRepository extends EntityRepository<Agent> {
  /** An agent only if `ownerId` owns it: not owned and missing look the same to callers. */
  findOwned(agentId: number, ownerId: number): Promise<Agent | null> {
    return this.findOne({ id: agentId, owner: ownerId });
  }

  listOwned(ownerId: number): Promise<Agent[]> {
    return this.find({ owner: ownerId }, { orderBy: { id: 'asc' } });
  }

  countOwned(ownerId: number): Promise<number> {
    return this.count({ owner: ownerId });
  }
}

export interface EligibleAgent {
  id: number;
  owner_id: number;
  mode: AgentMode;
}

/** Agents that may take arena prompts: active and (unless the gym is not required) gym-complete. */
export async function eligibleAgents(
  em: EntityManager,
  requireGym: boolean,
  excludeOwnerId: number,
): Promise<EligibleAgent[]> {
  return run<EligibleAgent>(
    em,
    `select id, owner_id, mode from agents
     where not deactivated and (mode = 'pull' or ping_ok) and (gym_complete or not ?) and owner_id <> ?
     order by random() limit 200`,
    [requireGym, excludeOwnerId],
  );
}

/**
 * Agents due a main prompt: active, (gym-complete,) nothing main in flight, and the gap since
 * their last main prompt has passed; longest waiting first.
 */
export function agentsDueForMainPrompt(
  em: EntityManager,
  rules: { requireGym: boolean; minGapSeconds: number; limit: number },
): Promise<Array<{ id: number; mode: AgentMode }>> {
  return run<{ id: number; mode: AgentMode }>(
    em,
    `select a.id, a.mode from agents a
     left join lateral (
       select max(s.created_at) as last_at, bool_or(s.status = 'pending') as in_flight
       from sessions s where s.agent_id = a.id and s.kind = 'main') m on true
     where not a.deactivated and (a.mode = 'pull' or a.ping_ok) and (a.gym_complete or not ?)
       and not coalesce(m.in_flight, false)
       and (m.last_at is null or m.last_at <= now() - make_interval(secs => ?))
     order by m.last_at asc nulls first, a.id
     limit ?`,
    [rules.requireGym, rules.minGapSeconds, rules.limit],
  );
}

/** What a pull call needs of its agent to check the secret, and no entity. */
export interface PullAgentRow {
  id: number;
  secret_hash: string;
  mode: string;
  deactivated: boolean;
  /** With `lookAtQueue`: whether the agent has queued work. */
  queued?: boolean;
}

/** The agent a pull call names (and, with `lookAtQueue`, whether it has queued work, in the same query). */
export async function findPullAgent(
  em: EntityManager,
  agentId: number,
  { lookAtQueue = false } = {},
): Promise<PullAgentRow | undefined> {
  const queued = lookAtQueue
    ? `, exists(select 1 from work_items w where w.agent_id = a.id and w.state = 'queued') as queued`
    : '';
  const [row] = await run<PullAgentRow>(
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

/** Locks both agents of a vote in id order (so two votes on overlapping agents cannot deadlock) and reads their Elo. */
export function lockElos(
  em: EntityManager,
  agentAId: number,
  agentBId: number,
): Promise<Array<{ id: number; elo: number }>> {
  return run<{ id: number; elo: number }>(em, `select id, elo from agents where id in (?, ?) order by id for update`, [
    agentAId,
    agentBId,
  ]);
}

export async function setElo(em: EntityManager, agentId: number, elo: number): Promise<void> {
  await run(em, `update agents set elo = ? where id = ?`, [elo, agentId]);
}
