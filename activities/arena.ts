/** Activities of the main arena's dispatch: which agents are due, and one new pool prompt for each. */
import type { AgentMode } from '../domain/agent-state';
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
        const run = <T>(q: string, p: unknown[]) => em.getConnection().execute<T[]>(q, p, 'all', em.getTransactionContext());
        type Row = { id: number; agent_id: number; mode: AgentMode; category: string; deadline_seconds: number };
        const toInput = (r: Row): DeliveryInput => ({
          sessionId: r.id,
          agentId: r.agent_id,
          kind: 'main',
          mode: r.mode,
          category: r.category,
          deadlineSeconds: r.deadline_seconds,
        });
        const prefix = `main:${dispatchKey}:`;
        const done = await run<Row>(
          `select id, agent_id, mode, category, deadline_seconds from sessions where dedupe_key like ? order by id`,
          [`${prefix}%`],
        );
        if (done.length > 0) return done.map(toInput);

        // Active, (gym-complete,) nothing main in flight, and the gap since the last main prompt has passed.
        const due = await run<{ id: number; mode: AgentMode }>(
          `select a.id, a.mode from agents a
           left join lateral (
             select max(s.created_at) as last_at, bool_or(s.status = 'pending') as in_flight
             from sessions s where s.agent_id = a.id and s.kind = 'main') m on true
           where not a.deactivated and (a.mode = 'pull' or a.ping_ok) and (a.gym_complete or not ?)
             and not coalesce(m.in_flight, false)
             and (m.last_at is null or m.last_at <= now() - make_interval(secs => ?))
           order by m.last_at asc nulls first, a.id
           limit ?`,
          [arena.requireGym, arena.minGapSeconds, arena.dispatchBatch],
        );
        const created: Row[] = [];
        for (const agent of due) {
          // A pool prompt this agent never got, preferring prompts with exactly one answer (a battle forms at once).
          const [row] = await run<Row>(
            `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, dedupe_key, created_at)
             select ?, 'main', p.id, ?, p.category, ?, 'pending', ?, now()
             from prompts p
             where p.source = 'pool' and p.retired_at is null
               and not exists (select 1 from sessions s where s.agent_id = ? and s.prompt_id = p.id and s.kind = 'main')
             order by case p.answer_count when 1 then 0 when 0 then 1 else 2 end, random()
             limit 1
             returning id, agent_id, mode, category, deadline_seconds`,
            [agent.id, agent.mode, arena.mainDeadlineSeconds, `${prefix}${agent.id}`, agent.id],
          );
          if (row) created.push(row);
        }
        return created.map(toInput);
      });
    },
  };
}
