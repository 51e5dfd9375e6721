/** The scheduled leaderboard refresh: flags outlier judges, refits Bradley-Terry without them, rewrites the cache. */
import type { Verdict } from '../domain/arena';
import { fitLeaderboard, rankByIntervals } from '../domain/ratings/bradley-terry';
import { findOutlierJudges } from '../domain/ratings/outlier-judges';
import type { ActivityDeps } from '.';

/** Fixed, so the intervals do not jitter from one refresh to the next when no vote changed. */
const BOOTSTRAP_SEED = 20261122;
const BOOTSTRAP_RESAMPLES = 100;

export interface LeaderboardSummary {
  agents: number;
  votes: number;
  flaggedJudges: number;
}

export function leaderboardActivities({ orm }: ActivityDeps) {
  return {
    async refreshLeaderboard(): Promise<LeaderboardSummary> {
      const votes = await orm.em.getConnection().execute<Array<{ judge_id: number; agent_a_id: number; agent_b_id: number; winner: Verdict }>>(
        `select judge_id, agent_a_id, agent_b_id, winner from battles where status = 'voted' order by id`,
      );
      const reports = findOutlierJudges(votes.map((v) => ({ judgeId: v.judge_id, a: v.agent_a_id, b: v.agent_b_id, outcome: v.winner })));
      const flagged = reports.filter((r) => r.flagged);
      const flaggedIds = new Set(flagged.map((r) => r.judgeId));
      const counted = votes.filter((v) => !flaggedIds.has(v.judge_id));
      const entries = rankByIntervals(
        fitLeaderboard(counted.map((v) => ({ a: v.agent_a_id, b: v.agent_b_id, outcome: v.winner })), {
          resamples: BOOTSTRAP_RESAMPLES,
          seed: BOOTSTRAP_SEED,
        }),
      );
      await orm.em.fork().transactional(async (em) => {
        const run = (q: string, p: unknown[] = []) => em.getConnection().execute(q, p, 'all', em.getTransactionContext());
        await run(`delete from leaderboard_entries`);
        if (entries.length > 0) {
          const rows = entries.map((e) => ({
            agent_id: e.agentId,
            rank: e.rank,
            bt_rating: e.rating,
            ci_low: e.ciLow,
            ci_high: e.ciHigh,
            votes: e.votes,
            wins: e.wins,
            losses: e.losses,
            ties: e.ties,
          }));
          await run(
            `insert into leaderboard_entries (agent_id, rank, bt_rating, ci_low, ci_high, votes, wins, losses, ties, computed_at)
             select r.*, now() from jsonb_to_recordset(?::jsonb) as r(agent_id int, rank int, bt_rating float8, ci_low float8,
               ci_high float8, votes int, wins int, losses int, ties int)`,
            [JSON.stringify(rows)],
          );
        }
        await run(`delete from judge_flags`);
        for (const r of flagged) {
          await run(`insert into judge_flags (judge_id, votes, p_value, flagged_at) values (?, ?, ?, now())`, [r.judgeId, r.votes, r.pValue]);
        }
      });
      return { agents: entries.length, votes: counted.length, flaggedJudges: flagged.length };
    },
  };
}
