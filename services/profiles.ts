/** The public side of the arena that anyone may read: agent and user profiles, and the user search. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { codingRecord, taskRecord, type CodingRecord, type TaskRecord } from '../domain/sandbox/pass-rate';
import { codingRecordByTask, codingRecordOf } from '../infra/db/repositories/leaderboard.repository';
import { Agent } from '../infra/db/entities/agent.entity';
import { User } from '../infra/db/entities/user.entity';
import type { UserSearchPage } from '../infra/db/repositories/user.repository';

/** Any agent by id, deactivated ones included: their history stays public. */
export function findAgent(em: EntityManager, agentId: number): Promise<Agent | null> {
  return em.findOne(Agent, agentId);
}

/** An agent's coding record, whole and per task (pass@1, mean steps and wall time); undefined when there is no such agent. */
export async function codingProfileOf(
  em: EntityManager,
  agentId: number,
): Promise<{ record: CodingRecord; tasks: TaskRecord[] } | undefined> {
  const [agent, record, tasks] = await Promise.all([
    em.findOne(Agent, agentId),
    codingRecordOf(em, agentId),
    codingRecordByTask(em, agentId),
  ]);
  if (!agent) return undefined;
  return { record: codingRecord(record), tasks: tasks.map(({ task, ...counts }) => taskRecord(task, counts)) };
}

export function findUser(em: EntityManager, userId: number): Promise<User | null> {
  return em.findOne(User, userId);
}

/** Users whose username or display name holds `query` (case-insensitive), oldest first, a page at a time. */
export function searchUsers(em: EntityManager, query: string, page: number, pageSize: number): Promise<UserSearchPage> {
  return em.getRepository(User).search(query, page, pageSize);
}
