/** Live battles' second chance: a side whose delivery failed goes to another eligible agent, once. */
import { eligibleAgents } from '../infra/db/repositories/agent.repository';
import { lockRunningLiveBattle, replaceBattleSide } from '../infra/db/repositories/battle.repository';
import { addDelivery, writtenDelivery } from '../infra/db/repositories/delivery.repository';
import { deliveryInputOf, type DeliveryInput } from '../workflows/contracts';
import type { ActivityDeps } from './deps';

const FAILED = new Set(['error', 'timeout']);

export function liveBattleActivities({ orm, arena }: ActivityDeps) {
  return {
    /**
     * Gives each failed side of a running live battle to another eligible agent whose owner is
     * neither the judge nor the other side's (nor another replacement's), and points the battle at
     * the new delivery. Returns the deliveries to start. Called once, after both first deliveries
     * ended: a side still pending is a replacement this made on an earlier attempt, returned again.
     */
    async replaceFailedLiveSides({ battleId }: { battleId: number }): Promise<DeliveryInput[]> {
      return orm.em.fork().transactional(async (em) => {
        const battle = await lockRunningLiveBattle(em, battleId);
        if (!battle) return [];
        const deliveries: DeliveryInput[] = [];
        const taken = new Set([
          battle.judge_id,
          ...battle.sides.filter((s) => !FAILED.has(s.status)).map((s) => s.owner_id),
        ]);
        for (const side of battle.sides) {
          if (side.status === 'pending') {
            deliveries.push(deliveryInputOf({ ...side, id: side.session_id, kind: 'main' }));
            continue;
          }
          if (!FAILED.has(side.status)) continue;
          const [agent] = await eligibleAgents(em, arena.requireGym, {
            ownerIds: [...taken],
            ...(battle.judge_cluster === null ? {} : { cluster: battle.judge_cluster }),
          });
          if (!agent) continue;
          taken.add(agent.owner_id);
          const session = addDelivery(em, {
            agent: agent.id,
            kind: 'main',
            prompt: battle.prompt_id,
            mode: agent.mode,
            category: side.category,
            deadlineSeconds: side.deadline_seconds,
          });
          await em.flush();
          await replaceBattleSide(em, battleId, side.side, { sessionId: session.id, agentId: agent.id });
          deliveries.push(deliveryInputOf(writtenDelivery(session)));
        }
        return deliveries;
      });
    },
  };
}
