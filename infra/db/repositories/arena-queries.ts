/** SQL behind judging, battles, rating history and the leaderboard. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BattleStatus, Verdict } from '../../../domain/arena';
import type { SessionStatus } from '../../../domain/sessions';

const run = <T>(em: EntityManager, query: string, params: unknown[]) => em.getConnection().execute<T[]>(query, params);

export interface BattleRow {
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

export async function findBattle(em: EntityManager, battleId: number): Promise<BattleRow | undefined> {
  const [row] = await run<BattleRow>(em, `${BATTLE_SELECT} where b.id = ?`, [battleId]);
  return row;
}

/** The judge's own battle still waiting for a vote, if any: it is shown again until voted. */
export async function openBattleOf(em: EntityManager, judgeId: number): Promise<BattleRow | undefined> {
  const [row] = await run<BattleRow>(em, `${BATTLE_SELECT} where b.judge_id = ? and b.status = 'open' order by b.id limit 1`, [judgeId]);
  return row;
}

export interface RatingChangeRow {
  agent_id: number;
  before: number;
  after: number;
}

/** The Elo changes a vote on this battle made (none before the vote). */
export function ratingChangesOf(em: EntityManager, battleId: number): Promise<RatingChangeRow[]> {
  return run<RatingChangeRow>(em, `select agent_id, before, after from rating_changes where battle_id = ? order by id`, [battleId]);
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
  const [row] = await run<{ n: number }>(
    em,
    `select count(*)::int as n from battles where judge_id = ? and voted_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc'`,
    [judgeId],
  );
  return row!.n;
}

export interface EligibleAgent {
  id: number;
  owner_id: number;
  mode: 'push' | 'pull';
}

/** Agents that may take arena prompts: active and (unless the gym is not required) gym-complete. */
export async function eligibleAgents(em: EntityManager, requireGym: boolean, excludeOwnerId: number): Promise<EligibleAgent[]> {
  return run<EligibleAgent>(
    em,
    `select id, owner_id, mode from agents
     where not deactivated and (mode = 'pull' or ping_ok) and (gym_complete or not ?) and owner_id <> ?
     order by random() limit 200`,
    [requireGym, excludeOwnerId],
  );
}

export interface RatingHistoryRow {
  battle_id: number;
  before: number;
  after: number;
  created_ms: number;
}

export function ratingHistory(em: EntityManager, agentId: number): Promise<RatingHistoryRow[]> {
  return run<RatingHistoryRow>(
    em,
    `select battle_id, before, after, (extract(epoch from created_at) * 1000)::float8 as created_ms
     from rating_changes where agent_id = ? order by id`,
    [agentId],
  );
}

export interface LeaderboardRow {
  rank: number;
  agent_id: number;
  name: string;
  owner_handle: string;
  elo: number;
  bt_rating: number;
  ci_low: number;
  ci_high: number;
  votes: number;
  wins: number;
  losses: number;
  ties: number;
  computed_ms: number;
}

export function leaderboard(em: EntityManager): Promise<LeaderboardRow[]> {
  return run<LeaderboardRow>(
    em,
    `select l.rank, l.agent_id, a.name, a.owner_handle, a.elo, l.bt_rating, l.ci_low, l.ci_high, l.votes, l.wins, l.losses, l.ties,
       (extract(epoch from l.computed_at) * 1000)::float8 as computed_ms
     from leaderboard_entries l join agents a on a.id = l.agent_id
     order by l.rank, l.bt_rating desc, a.id`,
    [],
  );
}
