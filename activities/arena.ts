/** Activities of the main arena's dispatch: which agents are due, and one new pool prompt for each. */
import { agentsDueForMainPrompt } from '../infra/db/repositories/agent.repository';
import {
  insertMainSession,
  mainSessionsOfDispatch,
  type StartedSession,
} from '../infra/db/repositories/session.repository';
import type { DeliveryInput } from '../workflows/contracts';
import type { ActivityDeps } from '.';

export function arenaActivities({ orm, arena }: ActivityDeps) {
  return {
    /**
     * Creates the main sessions of one dispatch run in one transaction and returns them. Keyed by
     * the run (`dispatchKey`): a retried activity returns the sessions the first attempt created.
     */
    async dispatchMainPrompts({ dispatchKey }: { dispatchKey: string }): Promise<DeliveryInput[]> {
      return orm.em.fork().transactional(async (em) => {
        const toInput = (r: StartedSession): DeliveryInput => ({
          sessionId: r.id,
          agentId: r.agent_id,
          kind: 'main',
          mode: r.mode,
          category: r.category,
          deadlineSeconds: r.deadline_seconds,
        });
        const prefix = `main:${dispatchKey}:`;
        const done = await mainSessionsOfDispatch(em, prefix);
        if (done.length > 0) return done.map(toInput);

        const due = await agentsDueForMainPrompt(em, {
          requireGym: arena.requireGym,
          minGapSeconds: arena.minGapSeconds,
          limit: arena.dispatchBatch,
        });
        const created: StartedSession[] = [];
        for (const agent of due) {
          const row = await insertMainSession(em, {
            agentId: agent.id,
            mode: agent.mode,
            deadlineSeconds: arena.mainDeadlineSeconds,
            dedupeKey: `${prefix}${agent.id}`,
          });
          if (row) created.push(row);
        }
        return created.map(toInput);
      });
    },
  };
}
