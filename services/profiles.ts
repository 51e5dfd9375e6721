/** The public side of the arena that anyone may read: agent and user profiles, and the user search. */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  codingRecord,
  suiteRecord,
  taskRecord,
  type CodingRecord,
  type SuiteRecord,
  type TaskRecord,
} from '../domain/sandbox/pass-rate';
import { CODING_SUITES } from '../domain/sandbox/suites';
import {
  activeTasksBySuite,
  arenaFaultRate,
  codingRecordByTask,
  codingRecordOf,
  codingTallies,
} from '../infra/db/repositories/leaderboard.repository';
import { Agent } from '../infra/db/entities/agent.entity';
import { User } from '../infra/db/entities/user.entity';
import type { UserSearchPage } from '../infra/db/repositories/user.repository';

/** Any agent by id, deactivated ones included: their history stays public. */
export function findAgent(em: EntityManager, agentId: number): Promise<Agent | null> {
  return em.findOne(Agent, agentId);
}

/**
 * An agent's coding record: whole, per suite (pass@1 with its interval, pass@k) and per task (pass@1,
 * mean steps and wall time); undefined when there is no such agent.
 */
export async function codingProfileOf(
  em: EntityManager,
  agentId: number,
): Promise<{ record: CodingRecord; suites: SuiteRecord[]; tasks: TaskRecord[] } | undefined> {
  const [agent, record, tasks, suites, faultRate] = await Promise.all([
    em.findOne(Agent, agentId),
    codingRecordOf(em, agentId),
    codingRecordByTask(em, agentId),
    codingSuitesOf(em, [agentId]),
    arenaFaultRate(em),
  ]);
  if (!agent) return undefined;
  return {
    record: codingRecord(record, faultRate),
    suites: suites.get(agentId) ?? [],
    tasks: tasks.map(({ task, ...counts }) => taskRecord(task, counts)),
  };
}

/**
 * Each agent's figure on every suite that has active tasks or that it attempted, in the suites'
 * order (the arena's own first), by agent id.
 */
export async function codingSuitesOf(
  em: EntityManager,
  agentIds: readonly number[],
): Promise<Map<number, SuiteRecord[]>> {
  const [tallies, active] = await Promise.all([codingTallies(em, agentIds), activeTasksBySuite(em)]);
  const activeCount = new Map(active.map((a) => [a.suite, a.tasks]));
  const byAgent = new Map<number, SuiteRecord[]>();
  for (const agentId of agentIds) {
    const mine = tallies.filter((t) => t.agent_id === agentId);
    const suites = [...CODING_SUITES, ...new Set(mine.map((t) => t.suite))].filter(
      (suite, i, all) =>
        all.indexOf(suite) === i && ((activeCount.get(suite) ?? 0) > 0 || mine.some((t) => t.suite === suite)),
    );
    byAgent.set(
      agentId,
      suites.map((suite) =>
        suiteRecord(
          suite,
          activeCount.get(suite) ?? 0,
          mine.filter((t) => t.suite === suite),
        ),
      ),
    );
  }
  return byAgent;
}

export function findUser(em: EntityManager, userId: number): Promise<User | null> {
  return em.findOne(User, userId);
}

/** Users whose username or display name holds `query` (case-insensitive), oldest first, a page at a time. */
export function searchUsers(em: EntityManager, query: string, page: number, pageSize: number): Promise<UserSearchPage> {
  return em.getRepository(User).search(query, page, pageSize);
}
