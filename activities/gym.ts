/** Activities of runGym: what to send next, creating each gym session once, and marking the gym complete. */
import type { AgentMode } from '../domain/agent-state';
import { isAgentActive } from '../domain/agent-state';
import { DEFAULT_DEADLINE_SECONDS } from '../domain/sessions';
import type { DeliveryInput } from '../workflows/contracts';
import type { ActivityDeps } from '.';

export type GymPlan =
  | { action: 'stop'; reason: string }
  | { action: 'complete' }
  | { action: 'wait' }
  | { action: 'send'; promptIds: number[] };

interface GymAgentRow {
  mode: AgentMode;
  deactivated: boolean;
  ping_ok: boolean;
  gym_attempt: number;
  /** Passed back to PostgreSQL as it came (text). */
  gym_started_at: string | null;
}

export function gymActivities({ orm }: ActivityDeps) {
  const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
    orm.em.getConnection().execute<T[]>(query, params);

  return {
    async planGymCycle({ agentId, attempt }: { agentId: number; attempt: number }): Promise<GymPlan> {
      const [agent] = await sql<GymAgentRow>(
        `select mode, deactivated, ping_ok, gym_attempt, gym_started_at from agents where id = ?`,
        [agentId],
      );
      if (!agent) return { action: 'stop', reason: 'agent no longer exists' };
      if (agent.gym_attempt !== attempt) return { action: 'stop', reason: 'superseded by a restart' };
      if (agent.deactivated) return { action: 'stop', reason: 'agent deactivated' };
      if (!isAgentActive({ mode: agent.mode, deactivated: agent.deactivated, pingOk: agent.ping_ok })) return { action: 'wait' };
      // Gym prompts without a good answer since this attempt started.
      const open = await sql<{ id: number }>(
        `select p.id from prompts p
         where p.source = 'gym' and not exists (
           select 1 from sessions s
           where s.agent_id = ? and s.prompt_id = p.id and s.kind = 'gym' and s.status = 'answered' and s.created_at >= ?)
         order by p.id`,
        [agentId, agent.gym_started_at],
      );
      return open.length === 0 ? { action: 'complete' } : { action: 'send', promptIds: open.map((r) => r.id) };
    },

    /** One session per (attempt, cycle, prompt): a retried activity gets the same session back. Null when the agent cannot take it. */
    async createGymSession(input: { agentId: number; attempt: number; cycle: number; promptId: number }): Promise<DeliveryInput | null> {
      const dedupeKey = `gym:${input.agentId}:${input.attempt}:${input.cycle}:${input.promptId}`;
      const [row] = await sql<{ id: number; mode: AgentMode; category: string; deadline_seconds: number }>(
        `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, dedupe_key, created_at)
         select a.id, 'gym', p.id, a.mode, p.category, ?, 'pending', ?, now()
         from agents a, prompts p
         where a.id = ? and p.id = ? and not a.deactivated and a.gym_attempt = ?
         on conflict (dedupe_key) do update set dedupe_key = excluded.dedupe_key
         returning id, mode, category, deadline_seconds`,
        [DEFAULT_DEADLINE_SECONDS.gym, dedupeKey, input.agentId, input.promptId, input.attempt],
      );
      if (!row) return null;
      return {
        sessionId: row.id,
        agentId: input.agentId,
        kind: 'gym',
        mode: row.mode,
        category: row.category,
        deadlineSeconds: row.deadline_seconds,
      };
    },

    async completeGym({ agentId, attempt }: { agentId: number; attempt: number }): Promise<void> {
      await sql(
        `update agents set gym_complete = true, gym_completed_at = now() where id = ? and gym_attempt = ? and not gym_complete`,
        [agentId, attempt],
      );
    },
  };
}
