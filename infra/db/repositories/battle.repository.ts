/** The owner of `battles`: every insert and update of the table, and what a judge reads of a battle. */
import type { EntityManager, RequiredEntityData } from '@mikro-orm/postgresql';
import type { AgentMode } from '../../../domain/agent-state';
import type { BattleStatus, Verdict } from '../../../domain/arena';
import type { DeliveryStatus } from '../../../domain/deliveries';
import type { HoldDecision, JudgedAs } from '../../../domain/judges';
import { Battle } from '../entities/battle.entity';
import { TAKE_OPEN_PAIR, takeOpenPairParams, type HandOutRules, type PairTaker } from './pair.repository';
import { onlyRow, run } from './sql';

/** A battle with its prompt and both sides' answers: what a judge reads. */
export interface BattleWithAnswers {
  id: number;
  judge_id: number;
  live: boolean;
  status: BattleStatus;
  winner: Verdict | null;
  prompt_id: number;
  prompt: string;
  category: string;
  session_a_id: number;
  session_b_id: number;
  /** The two sessions' ids in ascending order: the pool pair it was made from. */
  pair_low: number;
  pair_high: number;
  agent_a_id: number;
  agent_b_id: number;
  owner_a_id: number;
  owner_b_id: number;
  a_status: DeliveryStatus;
  a_response: string | null;
  a_error: string | null;
  b_status: DeliveryStatus;
  b_response: string | null;
  b_error: string | null;
  /** When each side's delivery runs out of time (its creation plus its deadline), in ms since the epoch. */
  a_due_ms: number;
  b_due_ms: number;
  created_ms: number;
}

/** A battle's row (from `battles`, or a statement's freshly inserted one) with its prompt and answers. */
const battleSelect = (
  battles: string,
) => `select b.id, b.judge_id, b.live, b.status, b.winner, b.prompt_id, p.text as prompt, p.category,
    b.session_a_id, b.session_b_id, b.pair_low, b.pair_high, b.agent_a_id, b.agent_b_id,
    aa.owner_id as owner_a_id, ab.owner_id as owner_b_id,
    sa.status as a_status, sa.response as a_response, sa.error as a_error,
    sb.status as b_status, sb.response as b_response, sb.error as b_error,
    (extract(epoch from sa.created_at + make_interval(secs => sa.deadline_seconds)) * 1000)::float8 as a_due_ms,
    (extract(epoch from sb.created_at + make_interval(secs => sb.deadline_seconds)) * 1000)::float8 as b_due_ms,
    (extract(epoch from b.created_at) * 1000)::float8 as created_ms
  from ${battles} b join prompts p on p.id = b.prompt_id
  join sessions sa on sa.id = b.session_a_id join sessions sb on sb.id = b.session_b_id
  join agents aa on aa.id = b.agent_a_id join agents ab on ab.id = b.agent_b_id`;
const BATTLE_SELECT = battleSelect('battles');

export async function findBattle(em: EntityManager, battleId: number): Promise<BattleWithAnswers | undefined> {
  const [row] = await run<BattleWithAnswers>(em, `${BATTLE_SELECT} where b.id = ?`, [battleId]);
  return row;
}

/** The judge's own battle still waiting for a vote, if any: it is shown again until voted. */
export async function openBattleOf(em: EntityManager, judgeId: number): Promise<BattleWithAnswers | undefined> {
  const [row] = await run<BattleWithAnswers>(
    em,
    `${BATTLE_SELECT} where b.judge_id = ? and b.status = 'open' order by b.id limit 1`,
    [judgeId],
  );
  return row;
}

/** The start of the current UTC day, as a timestamp. */
const UTC_TODAY = `date_trunc('day', now() at time zone 'utc') at time zone 'utc'`;

/** Votes cast by a judge since the start of the current UTC day. */
export async function votesToday(em: EntityManager, judgeId: number): Promise<number> {
  const rows = await run<{ n: number }>(
    em,
    `select count(*)::int as n from battles where judge_id = ? and voted_at >= ${UTC_TODAY}`,
    [judgeId],
  );
  return onlyRow(rows, 'votes today').n;
}

/** Votes cast from a client address since the start of the current UTC day, by every account. */
export async function votesTodayFrom(em: EntityManager, network: string): Promise<number> {
  const rows = await run<{ n: number }>(
    em,
    `select count(*)::int as n from battles where vote_network = ? and voted_at >= ${UTC_TODAY}`,
    [network],
  );
  return onlyRow(rows, 'votes today from an address').n;
}

/** Whether a vote from this address or the judge's registration cluster was already cast on the pair of this battle. */
export async function pairVotedFrom(
  em: EntityManager,
  battle: { id: number; pair_low: number; pair_high: number },
  judge: { network: string; cluster: number },
): Promise<boolean> {
  const rows = await run<{ id: number }>(
    em,
    `select id from battles where pair_low = ? and pair_high = ? and id <> ? and status = 'voted'
       and (vote_network = ? or judge_cluster = ?) limit 1`,
    [battle.pair_low, battle.pair_high, battle.id, judge.network, judge.cluster],
  );
  return rows.length > 0;
}

/**
 * A new battle for this judge on the open pair due first that they may take (TAKE_OPEN_PAIR; the
 * pair counted shown in the same statement, so a pair counted shown always has its battle), read
 * back as a judge reads it; undefined when no pair is left. One statement: no transaction round
 * trips on the judging hot path. `highFirst` puts the pair's higher session id on side A (the
 * caller draws it, so position says nothing about which agent answered).
 */
export async function openBattleOnNextPair(
  em: EntityManager,
  taker: PairTaker,
  rules: HandOutRules,
  highFirst: boolean,
): Promise<BattleWithAnswers | undefined> {
  const [a, b] = highFirst ? ['high', 'low'] : ['low', 'high'];
  const [row] = await run<BattleWithAnswers>(
    em,
    `with ${TAKE_OPEN_PAIR},
     opened as (
       insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id,
                            pair_low, pair_high, live, status, judge_network, judge_cluster, created_at)
       select taken.prompt_id, me.id, session_${a}_id, session_${b}_id, agent_${a}_id, agent_${b}_id,
              session_low_id, session_high_id, false, 'open', me.network, me.cluster, now()
       from taken cross join me
       returning *)
     ${battleSelect('opened')}`,
    takeOpenPairParams(taker, rules),
  );
  return row;
}

/** The fields a use case gives a new battle; the rest take their defaults (open, no winner). */
export type NewBattle = Pick<
  RequiredEntityData<Battle>,
  | 'prompt'
  | 'judge'
  | 'sessionA'
  | 'sessionB'
  | 'agentA'
  | 'agentB'
  | 'pairLow'
  | 'pairHigh'
  | 'live'
  | 'status'
  | 'judgeNetwork'
  | 'judgeCluster'
>;

/** A new battle in the use case's unit of work: inserted by its next flush. */
export function addBattle(em: EntityManager, fields: NewBattle): Battle {
  return em.create(Battle, fields);
}

/** A battle as a vote reads it, locked until the vote's transaction ends. */
export interface BattleToVote {
  id: number;
  judge_id: number;
  status: BattleStatus;
  winner: Verdict | null;
  agent_a_id: number;
  agent_b_id: number;
  prompt_id: number;
  live: boolean;
  session_a_id: number;
  session_b_id: number;
  pair_low: number;
  pair_high: number;
}

/** Locks the battle a vote is for (in the caller's transaction); undefined when there is no such battle. */
export async function lockBattleToVote(em: EntityManager, battleId: number): Promise<BattleToVote | undefined> {
  const [row] = await run<BattleToVote>(
    em,
    `select id, judge_id, status, winner, agent_a_id, agent_b_id, prompt_id, live, session_a_id, session_b_id, pair_low, pair_high
     from battles where id = ? for update`,
    [battleId],
  );
  return row;
}

/**
 * The vote: its verdict, the judge's standing then, the share of Elo's K it moved, the hold it joined
 * as cast, and (a voided judge's) that it is void from the start.
 */
export async function markBattleVoted(
  em: EntityManager,
  battleId: number,
  vote: { winner: Verdict; judgedAs: JudgedAs; eloWeight: number; holdId: number | null },
): Promise<void> {
  await run(
    em,
    `update battles set status = 'voted', winner = ?, judged_as = ?, elo_weight = ?, hold_id = ?, voted_at = now(),
       voided_at = case when ? then now() end
     where id = ?`,
    [vote.winner, vote.judgedAs, vote.eloWeight, vote.holdId, vote.judgedAs === 'voided', battleId],
  );
}

/** Voids every vote these judges cast that is not void yet (in the caller's transaction); returns the battles. */
export async function voidVotesOf(em: EntityManager, judgeIds: readonly number[]): Promise<number[]> {
  const rows = await run<{ id: number }>(
    em,
    `update battles set voided_at = now() where judge_id = any(?::int[]) and status = 'voted' and voided_at is null
     returning id`,
    [`{${judgeIds.join(',')}}`],
  );
  return rows.map((r) => r.id);
}

/**
 * The client address a vote on this open battle is being cast from, written before its workflow
 * applies it (the address is the request's, and never enters a workflow's history).
 */
export async function noteVoteNetwork(em: EntityManager, battleId: number, network: string): Promise<void> {
  await run(em, `update battles set vote_network = ? where id = ? and status = 'open'`, [network, battleId]);
}

/**
 * Ends a running live battle: open (votable) when both sides answered with something, void
 * otherwise. Undefined when the battle was not running (it ended before).
 */
export async function finishRunningBattle(em: EntityManager, battleId: number): Promise<BattleStatus | undefined> {
  const [row] = await run<{ status: BattleStatus }>(
    em,
    `update battles b set status = case
       when (select count(*) from sessions s where s.id in (b.session_a_id, b.session_b_id)
             and s.status = 'answered' and length(trim(s.response)) > 0) = 2 then 'open' else 'void' end
     where b.id = ? and b.status = 'running'
     returning status`,
    [battleId],
  );
  return row?.status;
}

/** A battle's status. The battle a workflow names exists unless it was deleted; then this throws. */
export async function battleStatus(em: EntityManager, battleId: number): Promise<BattleStatus> {
  const rows = await run<{ status: BattleStatus }>(em, `select status from battles where id = ?`, [battleId]);
  return onlyRow(rows, `status of battle ${battleId}`).status;
}

/** A vote as the refresh tests it: who cast it (their cluster and standing, then and now), from where, and on which agents. */
export interface CastVote {
  battle_id: number;
  judge_id: number;
  cluster: number;
  vote_network: string | null;
  live: boolean;
  /** The judge's standing when the vote was cast. */
  judged_as: JudgedAs | null;
  /** The judge's standing now: an operator's trusted judge (the reference), or established at all. */
  trusted: boolean;
  established: boolean;
  /** The hold the vote is under or was, and the operator's decision on it (null while held). */
  hold_id: number | null;
  hold_decision: HoldDecision | null;
  agent_a_id: number;
  agent_b_id: number;
  winner: Verdict;
}

/** Every vote cast and not voided, in the order cast. */
export function castVotes(em: EntityManager): Promise<CastVote[]> {
  return run<CastVote>(
    em,
    `select b.id as battle_id, b.judge_id, coalesce(u.registration_cluster, u.id) as cluster, b.vote_network,
       b.live, b.judged_as, coalesce(s.trusted_at is not null and s.voided_at is null, false) as trusted,
       coalesce(s.established_at is not null and s.voided_at is null, false) as established,
       b.hold_id, h.decision as hold_decision, b.agent_a_id, b.agent_b_id, b.winner
     from battles b join users u on u.id = b.judge_id left join judge_standings s on s.judge_id = b.judge_id
       left join vote_holds h on h.id = b.hold_id
     where b.status = 'voted' and b.voided_at is null order by b.id`,
  );
}

/** A running live battle's two sides as a replacement reads them: who answers each and how its delivery stands. */
export interface LiveBattleSides {
  judge_id: number;
  /** The judge's registration cluster: a replacement is never an agent of an owner in it. */
  judge_cluster: number | null;
  prompt_id: number;
  sides: Array<{
    side: 'a' | 'b';
    session_id: number;
    agent_id: number;
    owner_id: number;
    status: DeliveryStatus;
    mode: AgentMode;
    category: string;
    deadline_seconds: number;
  }>;
}

/** Locks a running live battle (in the caller's transaction) and reads its sides; undefined when it is not running. */
export async function lockRunningLiveBattle(em: EntityManager, battleId: number): Promise<LiveBattleSides | undefined> {
  const [battle] = await run<{
    judge_id: number;
    judge_cluster: number | null;
    prompt_id: number;
    session_a_id: number;
    session_b_id: number;
  }>(
    em,
    `select judge_id, judge_cluster, prompt_id, session_a_id, session_b_id from battles
     where id = ? and live and status = 'running' for update`,
    [battleId],
  );
  if (!battle) return undefined;
  const rows = await run<Omit<LiveBattleSides['sides'][number], 'side'>>(
    em,
    `select s.id as session_id, s.agent_id, a.owner_id, s.status, s.mode, s.category, s.deadline_seconds
     from sessions s join agents a on a.id = s.agent_id where s.id in (?, ?)`,
    [battle.session_a_id, battle.session_b_id],
  );
  const side = (key: 'a' | 'b', sessionId: number) => ({
    side: key,
    ...onlyRow(
      rows.filter((r) => r.session_id === sessionId),
      `side ${key} of battle ${battleId}`,
    ),
  });
  return {
    judge_id: battle.judge_id,
    judge_cluster: battle.judge_cluster,
    prompt_id: battle.prompt_id,
    sides: [side('a', battle.session_a_id), side('b', battle.session_b_id)],
  };
}

/** Points one side of a battle at another delivery (a live battle's replacement), keeping the pair's ids in order. */
export async function replaceBattleSide(
  em: EntityManager,
  battleId: number,
  side: 'a' | 'b',
  replacement: { sessionId: number; agentId: number },
): Promise<void> {
  const [session, agent] = side === 'a' ? ['session_a_id', 'agent_a_id'] : ['session_b_id', 'agent_b_id'];
  const other = side === 'a' ? 'session_b_id' : 'session_a_id';
  await run(
    em,
    `update battles set ${session} = ?, ${agent} = ?, pair_low = least(?, ${other}), pair_high = greatest(?, ${other}) where id = ?`,
    [replacement.sessionId, replacement.agentId, replacement.sessionId, replacement.sessionId, battleId],
  );
}
