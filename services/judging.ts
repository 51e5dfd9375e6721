/**
 * What a judge can do, whether they come through the API (bearer key) or the website (session):
 * get the next anonymous pair, read one of their battles, vote, and see the reveal.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ArenaSettings } from '../infra/config';
import { Agent } from '../infra/db/entities/agent.entity';
import {
  findBattle,
  noteVoteNetwork,
  openBattleOf,
  openBattleOnNextPair,
  pairVotedFrom,
  votesToday,
  votesTodayFrom,
  type BattleWithAnswers,
} from '../infra/db/repositories/battle.repository';
import { standingOf } from '../infra/db/repositories/judge-standing.repository';
import type { PairTaker } from '../infra/db/repositories/pair.repository';
import { ratingChangesOf } from '../infra/db/repositories/rating.repository';
import { judgingWindow, type Verdict } from '../domain/arena';
import {
  eloWeight,
  judgedAs,
  leftToEstablish,
  standingNote,
  type EstablishingRules,
  type StandingOfJudge,
} from '../domain/judges';
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

/** Whether the judge's votes count yet, as they read it beside the reveal and on /judge. */
export interface JudgeStandingJson {
  established: boolean;
  /** The share of Elo's K the judge's votes on pool pairs move: 1 once established, 0 before and when voided. */
  elo_weight: number;
  /** Votes on pairs a trusted judge also voted on, and how far they agreed, as of the last refresh. */
  compared_votes: number;
  agreement: number | null;
  /** Agents on which the judge's votes go against the trusted judges' beyond chance, as of the last refresh. */
  contrary_agents: number;
  /** What is left before the judge is established: days of account age, and compared votes. */
  days_left: number;
  votes_left: number;
  /** Why the votes do not count yet, and what is left; null when they count. */
  note: string | null;
}

/** The judge's standing as the API and the website show it. */
function standingJson(standing: StandingOfJudge, rules: EstablishingRules): JudgeStandingJson {
  const left = standing.established ? { days: 0, votes: 0 } : leftToEstablish(standing, rules);
  return {
    established: standing.established,
    elo_weight: eloWeight(judgedAs(standing), false),
    compared_votes: standing.comparedVotes,
    agreement: standing.agreement,
    contrary_agents: standing.contraryAgents,
    days_left: left.days,
    votes_left: left.votes,
    note: standingNote(standing, rules),
  };
}

/** A vote's outcome as the judge sees it, on the API and the website alike. */
export interface VoteResult {
  battle_id: number;
  winner: Verdict;
  a: RevealedSide;
  b: RevealedSide;
  judge: JudgeStandingJson;
}

/** Who judges: the account, and the client address the request came from (per-address rules count it). */
export type Judge = PairTaker;

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
  arena: Pick<ArenaSettings, 'votesPerPair' | 'judgingWindowMinutes'>,
  judge: Judge,
): Promise<BattleWithAnswers | undefined> {
  const open = await openBattleOf(em, judge.judgeId);
  if (open) return open;
  const rules = { votesPerPair: arena.votesPerPair, ...judgingWindow(arena.judgingWindowMinutes) };
  // Sides at random, so position says nothing about which agent answered.
  return openBattleOnNextPair(em, judge, rules, Math.random() < 0.5);
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

/**
 * Votes on the judge's battle through the `vote-<battle id>` workflow and reveals both agents with
 * their rating changes. Refused past the judge's daily cap, past the address's daily budget across
 * its accounts, and on a pool pair an account of the same address or registration cluster has
 * already judged (an operator's trusted judges are exempt from the last two).
 */
export async function voteOnBattle(
  em: EntityManager,
  deps: { workflows: WorkflowDeps; arena: ArenaSettings },
  judge: Judge,
  battleId: number,
  winner: Verdict,
): Promise<VoteResult> {
  const battle = await battleOfJudge(em, judge.judgeId, battleId);
  // Never handed out (judge/next and live battles skip one's own agents); were one to exist, it is not this judge's.
  if (battle.owner_a_id === judge.judgeId || battle.owner_b_id === judge.judgeId) throw notFound('battle');
  assertVotable(battle);
  const { dailyVotes, addressDailyVotes } = deps.arena;
  if ((await votesToday(em, judge.judgeId)) >= dailyVotes) {
    throw new ArenaError(
      'rate_limited',
      `daily vote limit reached (${dailyVotes} a day); try again tomorrow (UTC)`,
      secondsToUtcMidnight(),
    );
  }
  const standing = await standingOf(em, judge.judgeId);
  if (!standing) throw notFound('battle');
  if (!standing.trusted) {
    if ((await votesTodayFrom(em, judge.network)) >= addressDailyVotes) {
      throw new ArenaError(
        'rate_limited',
        `daily vote limit of your address reached (${addressDailyVotes} a day across all its accounts); try again tomorrow (UTC)`,
        secondsToUtcMidnight(),
      );
    }
    if (!battle.live && (await pairVotedFrom(em, battle, { network: judge.network, cluster: standing.cluster }))) {
      throw new ArenaError(
        'conflict',
        'an account of your address or registered with yours has already judged this pair: a pair takes one vote from each',
      );
    }
  }
  await noteVoteNetwork(em, battle.id, judge.network);
  const outcome = await castVote(deps.workflows, battle.id, winner);
  if (!outcome) throw new ArenaError('conflict', 'this battle has already been voted');
  const [a, b] = await Promise.all([revealedSide(em, outcome.a), revealedSide(em, outcome.b)]);
  return {
    battle_id: battle.id,
    winner: outcome.winner,
    a,
    b,
    judge: standingJson(standing, deps.arena),
  };
}

/** The judge's standing as the reveal shows it beside a vote. */
export async function judgeStanding(
  em: EntityManager,
  arena: ArenaSettings,
  judgeId: number,
): Promise<JudgeStandingJson | null> {
  const standing = await standingOf(em, judgeId);
  return standing ? standingJson(standing, arena) : null;
}

/** The reveal of a battle that was voted: who answered on each side and how their ratings moved. */
export async function revealOf(
  em: EntityManager,
  arena: ArenaSettings,
  battle: BattleWithAnswers,
): Promise<VoteResult | null> {
  if (battle.status !== 'voted' || !battle.winner) return null;
  const changes = await ratingChangesOf(em, battle.id);
  const side = (agentId: number) => {
    const change = changes.find((c) => c.agent_id === agentId);
    return change ? revealedSide(em, { agentId, before: change.before, after: change.after }) : null;
  };
  const [a, b, judge] = await Promise.all([
    side(battle.agent_a_id),
    side(battle.agent_b_id),
    judgeStanding(em, arena, battle.judge_id),
  ]);
  return a && b && judge ? { battle_id: battle.id, winner: battle.winner, a, b, judge } : null;
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
