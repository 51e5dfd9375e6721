/** Starting a live battle: a person's own prompt goes to two agents of different owners at once, and they judge it. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import type { ArenaSettings } from '../infra/config';
import { Battle } from '../infra/db/entities/battle.entity';
import { Prompt } from '../infra/db/entities/prompt.entity';
import { Session } from '../infra/db/entities/session.entity';
import { eligibleAgents, findBattle, type BattleRow, type EligibleAgent } from '../infra/db/repositories/arena-queries';
import type { DeliveryInput } from '../workflows/contracts';
import { startLiveBattle, type WorkflowDeps } from './deliveries';
import { ApiError } from '../api/errors';
import type { liveBattleCreate } from '../api/schemas/arena';

export type LiveBattleRequest = z.output<typeof liveBattleCreate>;

/** Creates the battle and its two sessions, then starts `battle-<id>`; a battle that cannot start is closed as void. */
export async function startLiveBattleFor(
  em: EntityManager,
  deps: { workflows: WorkflowDeps; arena: ArenaSettings },
  judgeId: number,
  { prompt: text, category, deadline_seconds: deadlineSeconds }: LiveBattleRequest,
): Promise<BattleRow> {
  const candidates = await eligibleAgents(em, deps.arena.requireGym, judgeId);
  const first = candidates[0];
  const second = candidates.find((c) => first && c.owner_id !== first.owner_id);
  if (!first || !second) throw new ApiError(409, 'a live battle needs two eligible agents of different owners (not yours); there are not enough yet');
  const prompt = em.create(Prompt, { source: 'live', category, text });
  const [sessionA, sessionB] = [first, second].map((agent) =>
    em.create(Session, { agent: agent.id, kind: 'main', prompt, mode: agent.mode, category, deadlineSeconds }),
  ) as [Session, Session];
  await em.flush();
  const battle = em.create(Battle, {
    prompt,
    judge: judgeId,
    sessionA,
    sessionB,
    agentA: first.id,
    agentB: second.id,
    pairLow: Math.min(sessionA.id, sessionB.id),
    pairHigh: Math.max(sessionA.id, sessionB.id),
    live: true,
    status: 'running',
  });
  await em.flush();
  const delivery = (session: Session, agent: EligibleAgent): DeliveryInput => ({
    sessionId: session.id,
    agentId: agent.id,
    kind: 'main',
    mode: agent.mode,
    category,
    deadlineSeconds,
  });
  try {
    await startLiveBattle(deps.workflows, { battleId: battle.id, deliveries: [delivery(sessionA, first), delivery(sessionB, second)] });
  } catch (err) {
    // Nothing will deliver it: close it so nothing shows as pending for ever.
    battle.status = 'void';
    for (const s of [sessionA, sessionB]) Object.assign(s, { status: 'error', error: 'the delivery could not be started', latencyMs: 0, completedAt: new Date() });
    await em.flush();
    throw err;
  }
  return (await findBattle(em, battle.id))!;
}
