/** The public side of the arena that anyone may read: agent and user profiles, and the user search. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Agent } from '../infra/db/entities/agent.entity';
import { User } from '../infra/db/entities/user.entity';
import type { UserSearchPage } from '../infra/db/repositories/user.repository';

/** Any agent by id, deactivated ones included: their history stays public. */
export function findAgent(em: EntityManager, agentId: number): Promise<Agent | null> {
  return em.findOne(Agent, agentId);
}

export function findUser(em: EntityManager, userId: number): Promise<User | null> {
  return em.findOne(User, userId);
}

/** Users whose username or display name holds `query` (case-insensitive), oldest first, a page at a time. */
export function searchUsers(em: EntityManager, query: string, page: number, pageSize: number): Promise<UserSearchPage> {
  return em.getRepository(User).search(query, page, pageSize);
}
