/** Starting a live battle: a person's own prompt goes to two agents of different owners at once, and they judge it. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ArenaSettings } from '../infra/config';
import { Prompt } from '../infra/db/entities/prompt.entity';
import type { Delivery } from '../infra/db/entities/delivery.entity';
import { eligibleAgents } from '../infra/db/repositories/agent.repository';
import { addBattle, findBattle, type BattleWithAnswers } from '../infra/db/repositories/battle.repository';
import { standingOf } from '../infra/db/repositories/judge-standing.repository';
import { asJudgeSeesIt, type Judge } from './judging';
import { addDelivery, writtenDelivery } from '../infra/db/repositories/delivery.repository';
import { startDeliveries } from './start-deliveries';
import type { WorkflowDeps } from './workflow-client';
import { ArenaError } from '../domain/errors';

/** A person's prompt for two agents at once (api/schemas/arena's liveBattleCreate is checked against it). */
export interface LiveBattleRequest {
  prompt: string;
  category: string;
  deadline_seconds: number;
  /** Offers the prompt to the pool: operators accept (it is then dispatched) or reject it. */
  offer_to_pool?: boolean;
}

/**
 * Creates the battle and its two sessions, then starts `battle-<id>`; a battle that cannot start is
 * closed as void. A live battle is the person's own comparison: its vote moves no Elo and counts on
 * no board, so how many a person leaves unvoted buys nothing (the start is rate limited per account).
 */
export async function startLiveBattleFor(
  em: EntityManager,
  deps: { workflows: WorkflowDeps; arena: ArenaSettings },
  judge: Judge,
  { prompt: text, category, deadline_seconds: deadlineSeconds, offer_to_pool: offered = false }: LiveBattleRequest,
): Promise<BattleWithAnswers> {
  const { judgeId } = judge;
  // Never an agent of an owner registered with the person, unless an operator vouches for them.
  const standing = await standingOf(em, judgeId);
  const excludedCluster = standing && !standing.trusted ? standing.cluster : null;
  const candidates = await eligibleAgents(em, deps.arena.requireGym, {
    ownerIds: [judgeId],
    ...(excludedCluster === null ? {} : { cluster: excludedCluster }),
  });
  const first = candidates[0];
  const second = candidates.find((c) => first && c.owner_id !== first.owner_id);
  if (!first || !second)
    throw new ArenaError(
      'conflict',
      'a live battle needs two eligible agents of different owners (not yours) online now, and there are not enough: an agent is online while its runner polls or its webhook answers',
    );
  const prompt = em.create(Prompt, {
    source: 'live',
    category,
    text,
    ...(offered ? { offeredAt: new Date(), offeredBy: judgeId, review: 'offered' as const } : {}),
  });
  const [sessionA, sessionB] = [first, second].map((agent) =>
    addDelivery(em, { agent: agent.id, kind: 'main', prompt, mode: agent.mode, category, deadlineSeconds }),
  ) as [Delivery, Delivery];
  await em.flush();
  const battle = addBattle(em, {
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
    judgeNetwork: judge.network,
    judgeCluster: excludedCluster,
  });
  await em.flush();
  await startDeliveries(em, deps.workflows, [writtenDelivery(sessionA), writtenDelivery(sessionB)], {
    kind: 'liveBattle',
    battleId: battle.id,
  });
  return asJudgeSeesIt((await findBattle(em, battle.id))!);
}
