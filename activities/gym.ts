/** Activities of runGym: what to send next, creating each gym session once, and marking the gym complete. */
import { isAgentActive } from '../domain/agent-state';
import { DEFAULT_DEADLINE_SECONDS } from '../domain/deliveries';
import { gymStateOf, markGymComplete } from '../infra/db/repositories/agent.repository';
import { insertGymDelivery } from '../infra/db/repositories/delivery.repository';
import { gymPromptsStillOpen } from '../infra/db/repositories/delivery-read.repository';
import { deliveryInputOf, type DeliveryInput } from '../workflows/contracts';
import type { ActivityDeps } from './deps';

export type GymPlan =
  | { action: 'stop'; reason: string }
  | { action: 'complete' }
  | { action: 'wait' }
  | { action: 'send'; promptIds: number[] };

export function gymActivities({ orm }: ActivityDeps) {
  return {
    async planGymCycle({ agentId, attempt }: { agentId: number; attempt: number }): Promise<GymPlan> {
      const agent = await gymStateOf(orm.em, agentId);
      if (!agent) return { action: 'stop', reason: 'agent no longer exists' };
      if (agent.gym_attempt !== attempt) return { action: 'stop', reason: 'superseded by a restart' };
      if (agent.deactivated) return { action: 'stop', reason: 'agent deactivated' };
      if (!isAgentActive({ mode: agent.mode, deactivated: agent.deactivated, pingOk: agent.ping_ok }))
        return { action: 'wait' };
      const open = await gymPromptsStillOpen(orm.em, agentId, agent.gym_started_at);
      return open.length === 0 ? { action: 'complete' } : { action: 'send', promptIds: open };
    },

    /** One session per (attempt, cycle, prompt): a retried activity gets the same session back. Null when the agent cannot take it. */
    async createGymSession(input: {
      agentId: number;
      attempt: number;
      cycle: number;
      promptId: number;
    }): Promise<DeliveryInput | null> {
      const row = await insertGymDelivery(orm.em, {
        agentId: input.agentId,
        promptId: input.promptId,
        attempt: input.attempt,
        deadlineSeconds: DEFAULT_DEADLINE_SECONDS.gym,
        dedupeKey: `gym:${input.agentId}:${input.attempt}:${input.cycle}:${input.promptId}`,
      });
      return row ? deliveryInputOf(row) : null;
    },

    async completeGym({ agentId, attempt }: { agentId: number; attempt: number }): Promise<void> {
      await markGymComplete(orm.em, agentId, attempt);
    },
  };
}
