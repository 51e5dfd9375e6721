/**
 * What a judge can do, whether they come through the API (bearer key) or the website (session):
 * get the next anonymous pair, read one of their battles, vote, and see the reveal.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ArenaSettings } from '../infra/config';
import { Agent } from '../infra/db/entities/agent.entity';
import {
  findBattle,
  openBattleOf,
  openBattleOnNextPair,
  votesToday,
  type BattleWithAnswers,
} from '../infra/db/repositories/battle.repository';
import { ratingChangesOf } from '../infra/db/repositories/rating.repository';
import type { Verdict } from '../domain/arena';
import { ArenaError, notFound } from '../domain/errors';
import { tierFor } from '../domain/ratings/tiers';
import type { RatingMove } from '../workflows/contracts';
import { castVote, type WorkflowDeps } from './workflow-client';

/** One side of a voted battle, revealed: who answered and how the vote moved their rating. */
export interface RevealedSide {
  agent_id: number;
  name: string;
  owner_handle: string;
  elo_before: number;
  elo_after: number;
  delta: number;
  tier: string;
}

/** A vote's outcome as the judge sees it, on the API and the website alike. */
export interface VoteResult {
  battle_id: number;
  winner: Verdict;
  a: RevealedSide;
  b: RevealedSide;
}

async function revealedSide(em: EntityManager, move: RatingMove): Promise<RevealedSide> {
  const agent = await em.findOneOrFail(Agent, move.agentId);
  return {
    agent_id: agent.id,
    name: agent.name,
    owner_handle: agent.ownerHandle,
    elo_before: move.before,
    elo_after: move.after,
    delta: move.after - move.before,
    tier: tierFor(move.after),
  };
}

/**
 * The judge's open battle if one waits for a vote, else a new one from the least-shown open pair
 * they may judge; undefined when nothing is left.
 */
export async function nextBattle(
  em: EntityManager,
  arena: Pick<ArenaSettings, 'votesPerPair'>,
  judgeId: number,
): Promise<BattleWithAnswers | undefined> {
  const open = await openBattleOf(em, judgeId);
  if (open) return open;
  // Sides at random, so position says nothing about which agent answered.
  return openBattleOnNextPair(em, judgeId, arena.votesPerPair, Math.random() < 0.5);
}

/**
 * A battle as its judge may see it: a live battle's answers only together, once both have arrived
 * or a side has failed for good (it is no longer running). Before that neither side shows its
 * status or text, so the order the answers came in says nothing about who wrote them.
 */
export function asJudgeSeesIt(battle: BattleWithAnswers): BattleWithAnswers {
  if (battle.status !== 'running') return battle;
  const waiting = { status: 'pending' as const, response: null, error: null };
  return {
    ...battle,
    a_status: waiting.status,
    a_response: waiting.response,
    a_error: waiting.error,
    b_status: waiting.status,
    b_response: waiting.response,
    b_error: waiting.error,
  };
}

/** A battle this judge holds, as they may see it; anyone else's (or a missing one) is 404. */
export async function battleOfJudge(em: EntityManager, judgeId: number, battleId: number): Promise<BattleWithAnswers> {
  const battle = await findBattle(em, battleId);
  if (!battle || battle.judge_id !== judgeId) throw notFound('battle');
  return asJudgeSeesIt(battle);
}

/** Votes on the judge's battle through the `vote-<battle id>` workflow and reveals both agents with their rating changes. */
export async function voteOnBattle(
  em: EntityManager,
  deps: { workflows: WorkflowDeps; arena: ArenaSettings },
  judgeId: number,
  battleId: number,
  winner: Verdict,
): Promise<VoteResult> {
  const battle = await battleOfJudge(em, judgeId, battleId);
  // Never handed out (judge/next and live battles skip one's own agents); were one to exist, it is not this judge's.
  if (battle.owner_a_id === judgeId || battle.owner_b_id === judgeId) throw notFound('battle');
  assertVotable(battle);
  const { dailyVotes } = deps.arena;
  if ((await votesToday(em, judgeId)) >= dailyVotes) {
    throw new ArenaError(
      'rate_limited',
      `daily vote limit reached (${dailyVotes} a day); try again tomorrow (UTC)`,
      secondsToUtcMidnight(),
    );
  }
  const outcome = await castVote(deps.workflows, battle.id, winner);
  if (!outcome) throw new ArenaError('conflict', 'this battle has already been voted');
  const [a, b] = await Promise.all([revealedSide(em, outcome.a), revealedSide(em, outcome.b)]);
  return { battle_id: battle.id, winner: outcome.winner, a, b };
}

/** The reveal of a battle that was voted: who answered on each side and how their ratings moved. */
export async function revealOf(em: EntityManager, battle: BattleWithAnswers): Promise<VoteResult | null> {
  if (battle.status !== 'voted' || !battle.winner) return null;
  const changes = await ratingChangesOf(em, battle.id);
  const side = (agentId: number) => {
    const change = changes.find((c) => c.agent_id === agentId);
    return change ? revealedSide(em, { agentId, before: change.before, after: change.after }) : null;
  };
  const [a, b] = await Promise.all([side(battle.agent_a_id), side(battle.agent_b_id)]);
  return a && b ? { battle_id: battle.id, winner: battle.winner, a, b } : null;
}

function assertVotable(battle: BattleWithAnswers): void {
  if (battle.status === 'voted') throw new ArenaError('conflict', 'this battle has already been voted');
  if (battle.status === 'running')
    throw new ArenaError('conflict', 'this battle is still running: both answers are not in yet');
  if (battle.status === 'void') throw new ArenaError('conflict', 'this battle is void: one side did not answer');
}

function secondsToUtcMidnight(now = new Date()): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}
