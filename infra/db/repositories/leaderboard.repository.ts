/**
 * The owner of `leaderboard_entries`, `vote_flags` and `uncounted_votes`: what each refresh rewrites,
 * and what the pages and the CLI read of it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { NO_CODING, type ArenaFaultRate, type CodingCounts } from '../../../domain/sandbox/pass-rate';
import { standingRow, type FittedBoard } from '../../../domain/ratings/boards';
import type { FlagKind, UncountedReason } from '../../../domain/ratings/vote-flags';
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
  /** The agent's coding record (`domain/sandbox/pass-rate.ts`). */
  coding: CodingCounts;
}

/**
 * What counts of a coding session (`s` the session, `c` its coding side): every one that reached the
 * agent and ended, whatever its end, except an `error` that was the arena's own failure.
 */
const ATTEMPTED = `s.status not in ('pending', 'running') and not c.arena_fault`;

/** The counts of a set of coding sessions, as `domain/sandbox/pass-rate.ts` reads them. */
const CODING_COUNTS = `count(*) filter (where ${ATTEMPTED})::int as attempted,
    count(*) filter (where s.status = 'passed')::int as passed,
    count(*) filter (where c.arena_fault)::int as arena_errors,
    count(*) filter (where c.tampered is not null)::int as tampered,
    (avg(c.steps) filter (where ${ATTEMPTED}))::float8 as mean_steps,
    (avg(extract(epoch from c.ended_at - s.created_at)) filter (where ${ATTEMPTED}))::float8 as mean_seconds`;

/** An agent's coding counts (`a` is the agent), through the coding sessions' partial index. */
export const CODING_RECORD = `select ${CODING_COUNTS}
  from sessions s join coding_sessions c on c.session_id = s.id
  where s.agent_id = a.id and s.kind = 'sandbox' and s.category = 'swe'`;

/** How often coding sessions end by the arena's own failure, over every ended session of the arena. */
export async function arenaFaultRate(em: EntityManager): Promise<ArenaFaultRate> {
  const [row] = await run<ArenaFaultRate>(
    em,
    `select count(*) filter (where arena_fault)::int as faults, count(*)::int as ended
     from coding_sessions where ended_at is not null`,
  );
  return row ?? { faults: 0, ended: 0 };
}

/** One agent's coding record, for its page. */
export async function codingRecordOf(em: EntityManager, agentId: number): Promise<CodingCounts> {
  const [row] = await run<CodingCounts>(
    em,
    `select c.* from agents a cross join lateral (${CODING_RECORD}) c where a.id = ?`,
    [agentId],
  );
  return row ?? NO_CODING;
}

/** One agent's coding counts per task, by task id: pass@1 and the means per task on its page. */
export function codingRecordByTask(
  em: EntityManager,
  agentId: number,
): Promise<Array<CodingCounts & { task: string }>> {
  return run<CodingCounts & { task: string }>(
    em,
    `select c.task_id as task, ${CODING_COUNTS}
     from sessions s join coding_sessions c on c.session_id = s.id
     where s.agent_id = ? and s.kind = 'sandbox' and s.category = 'swe'
     group by c.task_id order by c.task_id`,
    [agentId],
  );
}

/** Each agent's attempts and passes per task, with the task's suite: what the per-suite figures read. */
export function codingTallies(
  em: EntityManager,
  agentIds: readonly number[],
): Promise<Array<{ agent_id: number; suite: string; task: string; attempted: number; passed: number }>> {
  if (agentIds.length === 0) return Promise.resolve([]);
  return run(
    em,
    `select s.agent_id, t.suite, c.task_id as task,
       count(*) filter (where ${ATTEMPTED})::int as attempted, count(*) filter (where s.status = 'passed')::int as passed
     from sessions s join coding_sessions c on c.session_id = s.id join coding_tasks t on t.id = c.task_id
     where s.agent_id = any(?::int[]) and s.kind = 'sandbox' and s.category = 'swe'
     group by s.agent_id, t.suite, c.task_id`,
    // One array parameter, however many agents the board has.
    [`{${agentIds.join(',')}}`],
  );
}

/** The active tasks of each suite. */
export function activeTasksBySuite(em: EntityManager): Promise<Array<{ suite: string; tasks: number }>> {
  return run(em, `select suite, count(*)::int as tasks from coding_tasks where active group by suite`);
}

/** One board's rows: ranked agents by rank, then the provisional ones, best first. */
export function leaderboard(
  em: EntityManager,
  { board, styleControl }: { board: string; styleControl: boolean },
): Promise<LeaderboardRow[]> {
  return run<LeaderboardRow>(
    em,
    `select l.rank, l.agent_id, a.name, a.owner_handle, a.elo, l.bt_rating, l.ci_low, l.ci_high, l.votes, l.wins, l.losses, l.ties,
       (extract(epoch from l.computed_at) * 1000)::float8 as computed_ms, to_jsonb(c) as coding
     from leaderboard_entries l join agents a on a.id = l.agent_id
     cross join lateral (${CODING_RECORD}) c
     where l.board = ? and l.style_control = ?
     order by l.rank nulls last, l.bt_rating desc, a.id`,
    [board, styleControl],
  );
}

export interface CoefficientRow {
  name: string;
  estimate: number;
  ci_low: number;
  ci_high: number;
}

/** A controlled board's style coefficients, in the order the fit reports them; none before its first refresh. */
export function styleCoefficients(em: EntityManager, board: string): Promise<CoefficientRow[]> {
  return run<CoefficientRow>(
    em,
    `select name, estimate, ci_low, ci_high from leaderboard_coefficients where board = ? order by ordinal`,
    [board],
  );
}

/** Replaces every board and every coefficient, in the caller's transaction. */
export async function replaceBoards(em: EntityManager, boards: readonly FittedBoard[]): Promise<void> {
  await run(em, `delete from leaderboard_entries`);
  await run(em, `delete from leaderboard_coefficients`);
  const rows = boards.flatMap(({ board, styleControl, entries }) =>
    // Fields the insert does not name (provisional: a null rank) are not read.
    entries.map((e) => ({ board, style_control: styleControl, agent_id: e.agentId, ...standingRow(e) })),
  );
  for (let start = 0; start < rows.length; start += 5_000) {
    await run(
      em,
      `insert into leaderboard_entries (board, style_control, agent_id, rank, bt_rating, ci_low, ci_high, votes, wins, losses, ties, computed_at)
       select r.*, now() from jsonb_to_recordset(?::jsonb) as r(board text, style_control boolean, agent_id int, rank int,
         bt_rating float8, ci_low float8, ci_high float8, votes int, wins int, losses int, ties int)`,
      [JSON.stringify(rows.slice(start, start + 5_000))],
    );
  }
  const coefficients = boards.flatMap(({ board, coefficients: list }) =>
    list.map((c, ordinal) => ({
      board,
      ordinal,
      name: c.name,
      estimate: c.estimate,
      ci_low: c.ciLow,
      ci_high: c.ciHigh,
    })),
  );
  if (coefficients.length === 0) return;
  await run(
    em,
    `insert into leaderboard_coefficients (board, ordinal, name, estimate, ci_low, ci_high, computed_at)
     select r.*, now() from jsonb_to_recordset(?::jsonb) as r(board text, ordinal int, name text, estimate float8,
       ci_low float8, ci_high float8)`,
    [JSON.stringify(coefficients)],
  );
}

/** A flag as a refresh writes it (`vote_flags`). */
export interface NewVoteFlag {
  kind: FlagKind;
  judgeId: number | null;
  cluster: number | null;
  network: string | null;
  agentId: number | null;
  direction: 'for' | 'against' | null;
  votes: number;
  pValue: number;
  reason: string;
}

/** Replaces every flag and the list of published votes the boards leave out, in the caller's transaction. */
export async function replaceVoteFlags(
  em: EntityManager,
  flags: readonly NewVoteFlag[],
  uncounted: ReadonlyArray<{ battleId: number; reason: UncountedReason }>,
): Promise<void> {
  await run(em, `delete from vote_flags`);
  await run(em, `delete from uncounted_votes`);
  if (flags.length > 0) {
    await run(
      em,
      `insert into vote_flags (kind, judge_id, cluster, network, agent_id, direction, votes, p_value, reason, flagged_at)
       select r.kind, r.judge_id, r.cluster, r.network, r.agent_id, r.direction, r.votes, r.p_value, r.reason, now()
       from jsonb_to_recordset(?::jsonb) as r(kind text, judge_id int, cluster int, network text, agent_id int,
         direction text, votes int, p_value float8, reason text)`,
      [
        JSON.stringify(
          flags.map((f) => ({
            kind: f.kind,
            judge_id: f.judgeId,
            cluster: f.cluster,
            network: f.network,
            agent_id: f.agentId,
            direction: f.direction,
            votes: f.votes,
            p_value: f.pValue,
            reason: f.reason,
          })),
        ),
      ],
    );
  }
  for (let start = 0; start < uncounted.length; start += 10_000) {
    await run(
      em,
      `insert into uncounted_votes (battle_id, reason)
       select r.battle_id, r.reason from jsonb_to_recordset(?::jsonb) as r(battle_id int, reason text)`,
      [
        JSON.stringify(
          uncounted.slice(start, start + 10_000).map((u) => ({ battle_id: u.battleId, reason: u.reason })),
        ),
      ],
    );
  }
}

export interface VoteFlagRow {
  kind: FlagKind;
  judge_id: number | null;
  username: string | null;
  cluster: number | null;
  network: string | null;
  agent_id: number | null;
  agent_name: string | null;
  direction: 'for' | 'against' | null;
  votes: number;
  p_value: number;
  reason: string;
}

/** What the last refresh flagged, most suspicious first. */
export function voteFlags(em: EntityManager): Promise<VoteFlagRow[]> {
  return run<VoteFlagRow>(
    em,
    `select f.kind, f.judge_id, u.username, f.cluster, f.network, f.agent_id, a.name as agent_name, f.direction,
       f.votes, f.p_value, f.reason
     from vote_flags f left join users u on u.id = f.judge_id left join agents a on a.id = f.agent_id
     order by f.p_value, f.id`,
  );
}

/** A row of a claim board: a claimed model or set of tools, as the API answers it. */
export interface ClaimRow {
  rank: number | null;
  provisional: boolean;
  claim: string;
  /** The agents that claim it (on this board or not). */
  agents: number;
  bt_rating: number;
  ci_low: number;
  ci_high: number;
  votes: number;
  wins: number;
  losses: number;
  ties: number;
}

export interface StoredClaimBoard {
  by: string;
  board: string;
  styleControl: boolean;
  entries: ClaimRow[];
  coefficients: CoefficientRow[];
}

/** Every agent's claims, for the claim boards. */
export function agentClaims(em: EntityManager): Promise<Array<{ id: number; model: string | null; tools: string[] }>> {
  return run(em, `select id, model_claimed as model, tools_claimed as tools from agents`);
}

/** Replaces every claim board, in the caller's transaction. */
export async function replaceClaimBoards(em: EntityManager, boards: readonly StoredClaimBoard[]): Promise<void> {
  await run(em, `delete from claim_boards`);
  if (boards.length === 0) return;
  await run(
    em,
    `insert into claim_boards (by, board, style_control, entries, coefficients, computed_at)
     select r.by, r.board, r.style_control, r.entries, r.coefficients, now()
     from jsonb_to_recordset(?::jsonb) as r(by text, board text, style_control boolean, entries jsonb, coefficients jsonb)`,
    [
      JSON.stringify(
        boards.map((b) => ({
          by: b.by,
          board: b.board,
          style_control: b.styleControl,
          entries: b.entries,
          coefficients: b.coefficients,
        })),
      ),
    ],
  );
}

/** One claim board as the last refresh wrote it; undefined before any refresh fitted it. */
export async function claimBoard(
  em: EntityManager,
  key: { by: string; board: string; styleControl: boolean },
): Promise<(StoredClaimBoard & { computedMs: number }) | undefined> {
  const [row] = await run<{ entries: ClaimRow[]; coefficients: CoefficientRow[]; computed_ms: number }>(
    em,
    `select entries, coefficients, (extract(epoch from computed_at) * 1000)::float8 as computed_ms
     from claim_boards where by = ? and board = ? and style_control = ?`,
    [key.by, key.board, key.styleControl],
  );
  return row && { ...key, entries: row.entries, coefficients: row.coefficients, computedMs: row.computed_ms };
}
