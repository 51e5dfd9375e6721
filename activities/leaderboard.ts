/**
 * The scheduled leaderboard refresh: publishes the votes whose answers left judging, flags outlier
 * judges, fits every board (overall and per category, raw and controlled for style) on the
 * published votes of the others, and rewrites the cache.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OVERALL, boardCategory } from '../domain/ratings/boards';
import { findOutlierJudges } from '../domain/ratings/outlier-judges';
import { answerStyle } from '../domain/ratings/style';
import { boardVote } from '../domain/ratings/vote-export';
import { castVotes } from '../infra/db/repositories/battle.repository';
import { replaceBoards, replaceJudgeFlags } from '../infra/db/repositories/leaderboard.repository';
import {
  poolCategories,
  publishVotes,
  publishedVotes,
  votesToPublish,
  type PublicVoteRow,
  type VoteToPublish,
} from '../infra/db/repositories/public-vote.repository';
import type { ActivityDeps } from '.';
import { heartbeating } from './heartbeat';
import { fitBoardsInThreads } from './leaderboard-fit';
import { VoteColumnsBuilder } from './vote-columns';

/** The workflow's heartbeat timeout is a minute; the SDK sends at most one beat per 48 s of these. */
const HEARTBEAT_EVERY_MS = 5_000;

/** Votes read per page: a few megabytes each. */
const READ_PAGE = 50_000;

/** The row a vote ready to publish becomes, its answers' style counted. */
function publicVoteRow(v: VoteToPublish, category: string): PublicVoteRow {
  const a = answerStyle(v.response_a);
  const b = answerStyle(v.response_b);
  return {
    battle_id: v.battle_id,
    category,
    winner: v.winner,
    agent_a_id: v.agent_a_id,
    agent_b_id: v.agent_b_id,
    a_length: a.length,
    a_headers: a.headers,
    a_list_items: a.listItems,
    a_bold: a.bold,
    b_length: b.length,
    b_headers: b.headers,
    b_list_items: b.listItems,
    b_bold: b.bold,
  };
}

/**
 * The judges whose votes disagree with everyone else's far beyond chance, over every vote cast
 * (published or not). In a function of its own so the million rows it reads are gone before the fit.
 */
async function outlierJudges(em: EntityManager) {
  const votes = await castVotes(em);
  const reports = findOutlierJudges(
    votes.map((v) => ({ judgeId: v.judge_id, a: v.agent_a_id, b: v.agent_b_id, outcome: v.winner })),
  );
  return reports.filter((r) => r.flagged);
}

export interface LeaderboardSummary {
  agents: number;
  votes: number;
  flaggedJudges: number;
}

/** Needs only the database and the arena's settings: the bench runs the refresh alone. */
export function leaderboardActivities({ orm, arena }: Pick<ActivityDeps, 'orm' | 'arena'>) {
  return {
    async refreshLeaderboard(): Promise<LeaderboardSummary> {
      const em = orm.em.fork();
      const flagged = await outlierJudges(em);
      const flaggedIds = new Set(flagged.map((r) => r.judgeId));

      // The votes published before, and those whose answers have left judging since: these are
      // published with the boards they are counted on, in one transaction, so that the export
      // never lists a vote the boards have not counted.
      const counted = new VoteColumnsBuilder();
      for (let after = 0; ;) {
        const page = await publishedVotes(em, after, READ_PAGE, { counted: false });
        for (const v of page) if (!flaggedIds.has(v.judge_id)) counted.add(v.battle_id, boardVote(v));
        if (page.length < READ_PAGE) break;
        after = page[page.length - 1]!.battle_id;
      }
      const pool = new Set(await poolCategories(em));
      const fresh: PublicVoteRow[] = [];
      for (let after = 0; ;) {
        const page = await votesToPublish(em, after, READ_PAGE);
        for (const v of page) {
          const row = publicVoteRow(v, boardCategory(v.prompt_category, pool));
          fresh.push(row);
          if (!flaggedIds.has(v.judge_id)) counted.add(v.battle_id, boardVote(row));
        }
        if (page.length < READ_PAGE) break;
        after = page[page.length - 1]!.battle_id;
      }
      // By battle, the order the export lists them in.
      const columns = counted.build();
      // Minutes at a million votes: the beats tell Temporal the worker is still there.
      const boards = await heartbeating(
        () => fitBoardsInThreads(columns, { minVotes: arena.minVotes }, arena.leaderboardThreads),
        HEARTBEAT_EVERY_MS,
      );
      await orm.em.fork().transactional(async (tx) => {
        await publishVotes(tx, fresh);
        await replaceBoards(tx, boards);
        await replaceJudgeFlags(tx, flagged);
      });
      const overall = boards.find((b) => b.board === OVERALL && !b.styleControl);
      return { agents: overall?.entries.length ?? 0, votes: columns.count, flaggedJudges: flagged.length };
    },
  };
}
