/**
 * The leaderboards: the overall board and one per category, each raw and controlled for style,
 * fitted from the published votes. The refresh fits them all; `arena leaderboard fit` fits one
 * from the public export with the same code, and so prints the same numbers.
 */
import { fitVoteTable, type FittedRating } from './bradley-terry';
import { standings, type Standing } from './standings';
import { STYLE_FEATURES } from './style';
import { fitStyleControlledTable, type CoefficientEstimate, type StyledVote } from './style-control';
import { tabulateVotes } from './vote-table';

/** The board of every vote. */
export const OVERALL = 'all';
/** The category of a vote on a prompt of no pool category (a live battle's, which counts on no board). */
export const LIVE = 'live';

/** The seed of `arena leaderboard fit --bootstrap`, so a comparison run gives the same numbers twice. */
export const BOOTSTRAP_SEED = 20261122;

/** A published vote: its agents, verdict and style differences (STYLE_FEATURES order), and the category board it counts on. */
export interface BoardVote extends StyledVote {
  category: string;
}

export interface FittedBoard {
  /** OVERALL or a category. */
  board: string;
  styleControl: boolean;
  /** Best first: ranked agents, then the provisional ones. */
  entries: Array<FittedRating & Standing>;
  /** The style coefficients and the left side's, for a controlled board; empty for a raw one. */
  coefficients: CoefficientEstimate[];
}

export interface BoardOptions {
  /** Fewer votes on a board than this and an agent is provisional there, unranked. */
  minVotes: number;
  /** Fit this one board only (the CLI); all of them when absent. */
  only?: { board: string; styleControl: boolean };
  /** Bootstrap intervals from this many resamples, instead of the closed form (for comparison); seeded by `seed`, BOOTSTRAP_SEED unless given. */
  bootstrap?: number;
  seed?: number;
}

/** A ranked row's fields as the API, the CLI and the stored boards write them (the player's own fields aside). */
export function standingRow(e: FittedRating & Standing) {
  return {
    rank: e.rank,
    provisional: e.provisional,
    bt_rating: e.rating,
    ci_low: e.ciLow,
    ci_high: e.ciHigh,
    votes: e.votes,
    wins: e.wins,
    losses: e.losses,
    ties: e.ties,
  };
}

/** The category a vote counts toward: its prompt's when that is a pool category, else `live`. */
export function boardCategory(promptCategory: string, poolCategories: ReadonlySet<string>): string {
  return poolCategories.has(promptCategory) ? promptCategory : LIVE;
}

/** A board and one of its two views: what one fit computes. */
export interface BoardFit {
  board: string;
  styleControl: boolean;
}

/** The fits a refresh makes, in the order fitBoards returns them: overall first, then each category with votes; raw, then controlled. */
export function boardFits(votes: readonly { category: string }[]): BoardFit[] {
  const categories = [...new Set(votes.map((v) => v.category))].sort();
  return [OVERALL, ...categories].flatMap((board) => [
    { board, styleControl: false },
    { board, styleControl: true },
  ]);
}

/**
 * Fits the overall board and each category's that has votes, raw and controlled; a board's two
 * fits share its vote table. A category's board counts its votes only, in the order given (the
 * export's), so a bootstrap refit from the export draws the same resamples.
 */
export function fitBoards(votes: readonly BoardVote[], options: BoardOptions): FittedBoard[] {
  const fitOptions = { bootstrap: options.bootstrap, seed: options.seed ?? BOOTSTRAP_SEED };
  const wanted = (board: string, styleControl: boolean) =>
    !options.only || (options.only.board === board && options.only.styleControl === styleControl);
  const boards: FittedBoard[] = [];
  for (const board of new Set(boardFits(votes).map((f) => f.board))) {
    if (!wanted(board, false) && !wanted(board, true)) continue;
    const counted = board === OVERALL ? votes : votes.filter((v) => v.category === board);
    const table = tabulateVotes(counted);
    if (wanted(board, false)) {
      const entries = standings(fitVoteTable(table, fitOptions), options.minVotes);
      boards.push({ board, styleControl: false, entries, coefficients: [] });
    }
    if (wanted(board, true)) {
      const controlled = fitStyleControlledTable(table, counted, { ...fitOptions, featureNames: STYLE_FEATURES });
      boards.push({
        board,
        styleControl: true,
        entries: standings(controlled.entries, options.minVotes),
        coefficients: controlled.coefficients,
      });
    }
  }
  return boards;
}
