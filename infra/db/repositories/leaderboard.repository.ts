/** The owner of `leaderboard_entries` and `judge_flags`: the cache each refresh rewrites, and what the pages and the CLI read of it. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { run } from './sql';

export interface LeaderboardRow {
  /** Null for a provisional agent (fewer votes than the arena's minimum). */
  rank: number | null;
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
  /** Coding sessions scored (passed, failed or timed out) and passed. */
  coding_attempted: number;
  coding_passed: number;
}

/** An agent's scored coding sessions and those passed (`a` is the agent), through the coding sessions' partial index. */
export const CODING_RECORD = `select count(*) filter (where s.status in ('passed', 'failed', 'timeout'))::int as attempted,
    count(*) filter (where s.status = 'passed')::int as passed
  from sessions s where s.agent_id = a.id and s.kind = 'sandbox' and s.category = 'swe'`;

/** One agent's coding record, for its page. */
export async function codingRecordOf(
  em: EntityManager,
  agentId: number,
): Promise<{ attempted: number; passed: number }> {
  const [row] = await run<{ attempted: number; passed: number }>(
    em,
    `select c.attempted, c.passed from agents a cross join lateral (${CODING_RECORD}) c where a.id = ?`,
    [agentId],
  );
  return row ?? { attempted: 0, passed: 0 };
}

export function leaderboard(em: EntityManager): Promise<LeaderboardRow[]> {
  return run<LeaderboardRow>(
    em,
    `select l.rank, l.agent_id, a.name, a.owner_handle, a.elo, l.bt_rating, l.ci_low, l.ci_high, l.votes, l.wins, l.losses, l.ties,
       (extract(epoch from l.computed_at) * 1000)::float8 as computed_ms, c.attempted as coding_attempted, c.passed as coding_passed
     from leaderboard_entries l join agents a on a.id = l.agent_id
     cross join lateral (${CODING_RECORD}) c
     order by l.rank nulls last, l.bt_rating desc, a.id`,
    [],
  );
}

/** One agent's line of a leaderboard refresh, as written. */
export interface LeaderboardEntry {
  agent_id: number;
  rank: number | null;
  bt_rating: number;
  ci_low: number;
  ci_high: number;
  votes: number;
  wins: number;
  losses: number;
  ties: number;
}

/** Replaces the whole leaderboard, in the caller's transaction. */
export async function replaceLeaderboard(em: EntityManager, entries: readonly LeaderboardEntry[]): Promise<void> {
  await run(em, `delete from leaderboard_entries`);
  if (entries.length === 0) return;
  await run(
    em,
    `insert into leaderboard_entries (agent_id, rank, bt_rating, ci_low, ci_high, votes, wins, losses, ties, computed_at)
     select r.*, now() from jsonb_to_recordset(?::jsonb) as r(agent_id int, rank int, bt_rating float8, ci_low float8,
       ci_high float8, votes int, wins int, losses int, ties int)`,
    [JSON.stringify(entries)],
  );
}

/** Replaces the flagged judges, in the caller's transaction. */
export async function replaceJudgeFlags(
  em: EntityManager,
  flags: ReadonlyArray<{ judgeId: number; votes: number; pValue: number }>,
): Promise<void> {
  await run(em, `delete from judge_flags`);
  for (const flag of flags) {
    await run(em, `insert into judge_flags (judge_id, votes, p_value, flagged_at) values (?, ?, ?, now())`, [
      flag.judgeId,
      flag.votes,
      flag.pValue,
    ]);
  }
}

export interface FlaggedJudgeRow {
  id: number;
  username: string;
  votes: number;
  p_value: number;
}

/** The judges the last refresh flagged, most suspicious first. */
export function flaggedJudges(em: EntityManager): Promise<FlaggedJudgeRow[]> {
  return run<FlaggedJudgeRow>(
    em,
    `select u.id, u.username, f.votes, f.p_value from judge_flags f join users u on u.id = f.judge_id order by f.p_value, u.id`,
  );
}
