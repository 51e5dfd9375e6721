/**
 * The scheduled leaderboard refresh: reviews the judges (who is established, who is flagged),
 * publishes the votes whose answers left judging, fits every board (overall and per category, raw
 * and controlled for style) on the published votes that count, and rewrites the cache.
 */
import { OVERALL, boardCategory } from '../domain/ratings/boards';
import { answerStyle } from '../domain/ratings/style';
import { boardVote } from '../domain/ratings/vote-export';
import type { UncountedReason } from '../domain/ratings/vote-flags';
import { closeOverduePairs } from '../infra/db/repositories/pair.repository';
import { replaceBoards, replaceVoteFlags } from '../infra/db/repositories/leaderboard.repository';
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
import { reviewJudges } from './judge-review';
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
      // Pairs whose answers left judging by their window are never handed out again.
      await closeOverduePairs(em);
      const review = await reviewJudges(em, arena);

      // The votes published before, and those whose answers have left judging since: these are
      // published with the boards they are counted on, in one transaction, so that the export
      // never lists a vote the boards have not counted.
      const counted = new VoteColumnsBuilder();
      const uncounted: Array<{ battleId: number; reason: UncountedReason }> = [];
      const count = (battleId: number, voided: boolean, vote: Parameters<typeof boardVote>[0]) => {
        const reason = voided ? 'voided' : review.uncounted.get(battleId);
        if (reason) uncounted.push({ battleId, reason });
        else counted.add(battleId, boardVote(vote));
      };
      for (let after = 0; ;) {
        const page = await publishedVotes(em, after, READ_PAGE, { counted: false });
        for (const v of page) count(v.battle_id, v.voided, v);
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
          count(v.battle_id, false, row);
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
        await replaceVoteFlags(tx, review.flags, uncounted);
      });
      const overall = boards.find((b) => b.board === OVERALL && !b.styleControl);
      return { agents: overall?.entries.length ?? 0, votes: columns.count, flaggedJudges: review.flaggedJudges };
    },
  };
}
