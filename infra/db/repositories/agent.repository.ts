/** Queries about agents, always scoped the way the routes need them. */
import { EntityRepository } from '@mikro-orm/postgresql';
import type { Agent } from '../entities/agent.entity';

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
