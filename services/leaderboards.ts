/** The leaderboards people read: which boards there are, one board's rows and style coefficients (of agents, or of their claims), and the public vote export. */
import { IsolationLevel, type EntityManager } from '@mikro-orm/postgresql';
import { ArenaError } from '../domain/errors';
import { formatTimestamp } from '../domain/timestamps';
import { OVERALL } from '../domain/ratings/boards';
import type { ExportedVote } from '../domain/ratings/vote-export';
import type { ClaimKind } from '../domain/ratings/claims';
import {
  arenaFaultRate,
  claimBoard,
  leaderboard,
  styleCoefficients,
  type ClaimRow,
  type CoefficientRow,
  type LeaderboardRow,
} from '../infra/db/repositories/leaderboard.repository';
import type { ArenaFaultRate } from '../domain/sandbox/pass-rate';
import { poolCategories, publishedVotes } from '../infra/db/repositories/public-vote.repository';

/** The categories with a board: the pool's, in alphabetical order (live battles count on no board). */
export async function boardCategories(em: EntityManager): Promise<string[]> {
  return [...(await poolCategories(em))].sort();
}

/** The board a request names: the overall one without a category; an unknown category is refused. */
export async function boardNamed(em: EntityManager, category: string | undefined): Promise<string> {
  if (category === undefined) return OVERALL;
  const categories = await boardCategories(em);
  if (!categories.includes(category))
    throw new ArenaError('invalid', `category must be one of ${categories.join(', ')}; "${category}" is not`);
  return category;
}

export interface Board {
  /** OVERALL or the category. */
  board: string;
  rows: LeaderboardRow[];
  /** How often coding sessions end by the arena's own failure: what an agent's share is measured against. */
  faultRate: ArenaFaultRate;
  /** The style coefficients of the controlled fit (empty until a refresh has fitted this board). */
  coefficients: CoefficientRow[];
}

export async function readBoard(
  em: EntityManager,
  { category, styleControl }: { category?: string; styleControl: boolean },
): Promise<Board> {
  const board = await boardNamed(em, category);
  const [rows, coefficients, faultRate] = await Promise.all([
    leaderboard(em, { board, styleControl }),
    styleControl ? styleCoefficients(em, board) : [],
    arenaFaultRate(em),
  ]);
  return { board, rows, coefficients, faultRate };
}

export interface ClaimBoardView {
  board: string;
  rows: ClaimRow[];
  coefficients: CoefficientRow[];
  /** When the last refresh wrote it; undefined before any refresh fitted it. */
  computedMs: number | undefined;
}

/** A board whose players are agents' claimed models or tools (`?by=model`, `?by=tool`): empty until a refresh fitted it. */
export async function readClaimBoard(
  em: EntityManager,
  { by, category, styleControl }: { by: ClaimKind; category?: string; styleControl: boolean },
): Promise<ClaimBoardView> {
  const board = await boardNamed(em, category);
  const stored = await claimBoard(em, { by, board, styleControl });
  return {
    board,
    rows: stored?.entries ?? [],
    coefficients: styleControl ? (stored?.coefficients ?? []) : [],
    computedMs: stored?.computedMs,
  };
}

/** Votes read from the database per page of the export. */
const EXPORT_PAGE = 5_000;

/**
 * Exports read at once from one API process. Each holds a database connection (its snapshot) for
 * as long as its client takes to read it, so slow downloads must not take the pool from everyone.
 */
export const EXPORTS_AT_ONCE = 2;
let exportsOpen = 0;

export interface VoteExport {
  pages: AsyncGenerator<ExportedVote[]>;
  /** Gives the export's place back; once is enough, more is harmless. Call it when the download ends, however it ends. */
  release(): void;
}

/** Takes one of the process's export places, or refuses (503) when all are taken: before any byte is sent. */
export function openVoteExport(em: EntityManager): VoteExport {
  if (exportsOpen >= EXPORTS_AT_ONCE)
    throw new ArenaError(
      'unavailable',
      `${EXPORTS_AT_ONCE} vote exports are being downloaded from this server already; try again in a few seconds`,
      5,
    );
  exportsOpen++;
  let released = false;
  return {
    pages: exportVotes(em),
    release() {
      if (released) return;
      released = true;
      exportsOpen--;
    },
  };
}

/**
 * The counted votes, page by page in the order the boards were fitted, each judge named by a
 * pseudonym (`judge-1`, `judge-2`… in order of their first vote here), so that one judge's votes
 * can be told apart without saying who judged.
 */
async function* exportVotes(em: EntityManager): AsyncGenerator<ExportedVote[]> {
  // One snapshot for every page: a refresh that commits meanwhile changes nothing in this export.
  const tx = em.fork();
  await tx.begin({ isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
  try {
    yield* pagesOf(tx);
  } finally {
    await tx.rollback();
  }
}

async function* pagesOf(em: EntityManager): AsyncGenerator<ExportedVote[]> {
  const pseudonyms = new Map<number, string>();
  const pseudonym = (judgeId: number) => {
    let name = pseudonyms.get(judgeId);
    if (!name) pseudonyms.set(judgeId, (name = `judge-${pseudonyms.size + 1}`));
    return name;
  };
  for (let after = 0; ;) {
    const page = await publishedVotes(em, after, EXPORT_PAGE, { counted: true });
    yield page.map(({ judge_id, voted_ms, voided: _voided, ...v }) => ({
      ...v,
      judge: pseudonym(judge_id),
      left: 'a' as const,
      voted_at: formatTimestamp(new Date(voted_ms)),
    }));
    if (page.length < EXPORT_PAGE) return;
    after = page[page.length - 1]!.battle_id;
  }
}
