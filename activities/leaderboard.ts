/**
 * The scheduled leaderboard refresh: reviews the judges (who is established, who is flagged),
 * publishes the votes whose answers left judging, fits every board (overall and per category, raw
 * and controlled for style) on the published votes that count, the same boards with the agents'
 * claimed models and tools as players, and rewrites the cache.
 */
import { OVERALL, boardCategory, standingRow, type FittedBoard } from '../domain/ratings/boards';
import { CLAIM_KINDS, claimPlayers, type ClaimKind } from '../domain/ratings/claims';
import { answerStyle } from '../domain/ratings/style';
import { coefficientRow } from '../domain/ratings/style-control';
import { boardVote } from '../domain/ratings/vote-export';
import type { UncountedReason } from '../domain/ratings/vote-flags';
import { closeOverduePairs } from '../infra/db/repositories/pair.repository';
import { holdVotes } from '../infra/db/repositories/vote-hold.repository';
import {
  agentClaims,
  replaceBoards,
  replaceClaimBoards,
  replaceVoteFlags,
  type StoredClaimBoard,
} from '../infra/db/repositories/leaderboard.repository';
import {
  poolCategories,
  publishVotes,
  publishedVotes,
  votesToPublish,
  type PublicVoteRow,
  type VoteToPublish,
} from '../infra/db/repositories/public-vote.repository';
import type { ActivityDeps } from './deps';
import { heartbeating } from './heartbeat';
import { reviewJudges } from './judge-review';
import { fitBoardSetsInThreads } from './leaderboard-fit';
import { VoteColumnsBuilder, playerColumns } from './vote-columns';

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

/** A fitted claim board as stored: each player's number back to its claim, with its count of agents. */
function storedClaimBoard(
  by: ClaimKind,
  board: FittedBoard,
  names: { claims: readonly string[]; agents: readonly number[] },
): StoredClaimBoard {
  return {
    by,
    board: board.board,
    styleControl: board.styleControl,
    entries: board.entries.map((e) => ({
      claim: names.claims[e.agentId - 1]!,
      agents: names.agents[e.agentId - 1]!,
      ...standingRow(e),
    })),
    coefficients: board.coefficients.map(coefficientRow),
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
      // The same votes with the agents' claims as players: one set per kind of claim.
      const agents = await agentClaims(em);
      const claimed = CLAIM_KINDS.map((kind) => ({ kind, ...claimPlayers(kind, agents) }));
      // Seconds at a million votes: the beats tell Temporal the worker is still there.
      const [boards, ...claimBoards] = await heartbeating(
        () =>
          fitBoardSetsInThreads(
            [columns, ...claimed.map((c) => playerColumns(columns, c.players))],
            { minVotes: arena.minVotes },
            arena.leaderboardThreads,
          ),
        HEARTBEAT_EVERY_MS,
      );
      await orm.em.fork().transactional(async (tx) => {
        await publishVotes(tx, fresh);
        await replaceBoards(tx, boards!);
        await replaceClaimBoards(
          tx,
          claimed.flatMap((c, k) => claimBoards[k]!.map((board) => storedClaimBoard(c.kind, board, c))),
        );
        await replaceVoteFlags(tx, review.flags, uncounted);
        // The cohort's votes on a held agent: out of the boards above, and their Elo taken back now.
        await holdVotes(tx, review.holds, review.toHold);
      });
      const overall = boards!.find((b) => b.board === OVERALL && !b.styleControl);
      return { agents: overall?.entries.length ?? 0, votes: columns.count, flaggedJudges: review.flaggedJudges };
    },
  };
}
