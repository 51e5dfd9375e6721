/** The owner of `battles`: every insert and update of the table, what a judge reads of a battle, and the pairs still to judge. */
import type { EntityManager, RequiredEntityData } from '@mikro-orm/postgresql';
import type { BattleStatus, Verdict } from '../../../domain/arena';
import type { SessionStatus } from '../../../domain/sessions';
import { Battle } from '../entities/battle.entity';
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
  agent_a_id: number;
  agent_b_id: number;
  owner_a_id: number;
  owner_b_id: number;
  a_status: SessionStatus;
  a_response: string | null;
  a_error: string | null;
  b_status: SessionStatus;
  b_response: string | null;
  b_error: string | null;
  created_ms: number;
}

const BATTLE_SELECT = `select b.id, b.judge_id, b.live, b.status, b.winner, b.prompt_id, p.text as prompt, p.category,
    b.session_a_id, b.session_b_id, b.agent_a_id, b.agent_b_id, aa.owner_id as owner_a_id, ab.owner_id as owner_b_id,
    sa.status as a_status, sa.response as a_response, sa.error as a_error,
    sb.status as b_status, sb.response as b_response, sb.error as b_error,
    (extract(epoch from b.created_at) * 1000)::float8 as created_ms
  from battles b join prompts p on p.id = b.prompt_id
  join sessions sa on sa.id = b.session_a_id join sessions sb on sb.id = b.session_b_id
  join agents aa on aa.id = b.agent_a_id join agents ab on ab.id = b.agent_b_id`;

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

export interface CandidatePair {
  prompt_id: number;
  low: number;
  high: number;
  low_agent: number;
  high_agent: number;
}

/**
 * The pair of answers judged least so far (ties broken at random) that this judge has not seen:
 * two non-empty answers to one prompt from active agents of different owners, neither the judge's.
 */
export async function leastJudgedPair(em: EntityManager, judgeId: number): Promise<CandidatePair | undefined> {
  const [row] = await run<CandidatePair>(
    em,
    `with answers as (
       select s.id, s.prompt_id, s.agent_id, a.owner_id
       from sessions s join agents a on a.id = s.agent_id
       where s.kind = 'main' and s.status = 'answered' and length(trim(s.response)) > 0
         and not a.deactivated and a.owner_id <> ?)
     select x.prompt_id, x.id as low, y.id as high, x.agent_id as low_agent, y.agent_id as high_agent
     from answers x join answers y on y.prompt_id = x.prompt_id and y.id > x.id and y.owner_id <> x.owner_id
     where not exists (select 1 from battles j where j.judge_id = ? and j.pair_low = x.id and j.pair_high = y.id)
     order by (select count(*) from battles v where v.pair_low = x.id and v.pair_high = y.id and v.status = 'voted'), random()
     limit 1`,
    [judgeId, judgeId],
  );
  return row;
}

/** Votes cast by a judge since the start of the current UTC day. */
export async function votesToday(em: EntityManager, judgeId: number): Promise<number> {
  const rows = await run<{ n: number }>(
    em,
    `select count(*)::int as n from battles where judge_id = ? and voted_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc'`,
    [judgeId],
  );
  return onlyRow(rows, 'votes today').n;
}

/** The fields a use case gives a new battle; the rest take their defaults (open, no winner). */
export type NewBattle = Pick<
  RequiredEntityData<Battle>,
  'prompt' | 'judge' | 'sessionA' | 'sessionB' | 'agentA' | 'agentB' | 'pairLow' | 'pairHigh' | 'live' | 'status'
>;

/** A new battle in the use case's unit of work: inserted by its next flush. */
export function addBattle(em: EntityManager, fields: NewBattle): Battle {
  return em.create(Battle, fields);
}

/** A live battle whose workflow could not be started ends void; the caller's flush writes it. */
export function voidUnstartedBattle(battle: Battle): void {
  battle.status = 'void';
}

/** A battle as a vote reads it, locked until the vote's transaction ends. */
export interface BattleToVote {
  id: number;
  status: BattleStatus;
  winner: Verdict | null;
  agent_a_id: number;
  agent_b_id: number;
  prompt_id: number;
}

/** Locks the battle a vote is for (in the caller's transaction); undefined when there is no such battle. */
export async function lockBattleToVote(em: EntityManager, battleId: number): Promise<BattleToVote | undefined> {
  const [row] = await run<BattleToVote>(
    em,
    `select id, status, winner, agent_a_id, agent_b_id, prompt_id from battles where id = ? for update`,
    [battleId],
  );
  return row;
}

export async function markBattleVoted(em: EntityManager, battleId: number, winner: Verdict): Promise<void> {
  await run(em, `update battles set status = 'voted', winner = ?, voted_at = now() where id = ?`, [winner, battleId]);
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

/** A vote as the leaderboard fits it. */
export interface CastVote {
  judge_id: number;
  agent_a_id: number;
  agent_b_id: number;
  winner: Verdict;
}

/** Every vote cast, in the order cast. */
export function castVotes(em: EntityManager): Promise<CastVote[]> {
  return run<CastVote>(
    em,
    `select judge_id, agent_a_id, agent_b_id, winner from battles where status = 'voted' order by id`,
  );
}
