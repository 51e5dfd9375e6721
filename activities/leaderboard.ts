/** The scheduled leaderboard refresh: flags outlier judges, refits Bradley-Terry without them, ranks, rewrites the cache. */
import { findOutlierJudges } from '../domain/ratings/outlier-judges';
import { standings } from '../domain/ratings/standings';
import { castVotes } from '../infra/db/repositories/battle.repository';
import { replaceJudgeFlags, replaceLeaderboard } from '../infra/db/repositories/leaderboard.repository';
import type { ActivityDeps } from '.';
import { fitLeaderboardInThread } from './leaderboard-fit';

/** Fixed, so the intervals do not jitter from one refresh to the next when no vote changed. */
const BOOTSTRAP_SEED = 20261122;
const BOOTSTRAP_RESAMPLES = 100;

export interface LeaderboardSummary {
  agents: number;
  votes: number;
  flaggedJudges: number;
}

export function leaderboardActivities({ orm, arena }: ActivityDeps) {
  return {
    async refreshLeaderboard(): Promise<LeaderboardSummary> {
      const votes = await castVotes(orm.em);
      const reports = findOutlierJudges(
        votes.map((v) => ({ judgeId: v.judge_id, a: v.agent_a_id, b: v.agent_b_id, outcome: v.winner })),
      );
      const flagged = reports.filter((r) => r.flagged);
      const flaggedIds = new Set(flagged.map((r) => r.judgeId));
      const counted = votes.filter((v) => !flaggedIds.has(v.judge_id));
      const fitted = await fitLeaderboardInThread(
        counted.map((v) => ({ a: v.agent_a_id, b: v.agent_b_id, outcome: v.winner })),
        { resamples: BOOTSTRAP_RESAMPLES, seed: BOOTSTRAP_SEED },
      );
      const entries = standings(fitted, arena.minVotes);
      await orm.em.fork().transactional(async (em) => {
        await replaceLeaderboard(
          em,
          entries.map((e) => ({
            agent_id: e.agentId,
            rank: e.rank,
            bt_rating: e.rating,
            ci_low: e.ciLow,
            ci_high: e.ciHigh,
            votes: e.votes,
            wins: e.wins,
            losses: e.losses,
            ties: e.ties,
          })),
        );
        await replaceJudgeFlags(em, flagged);
      });
      return { agents: entries.length, votes: counted.length, flaggedJudges: flagged.length };
    },
  };
}
