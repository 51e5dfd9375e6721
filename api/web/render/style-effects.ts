/** The style coefficients of a controlled board, in words a reader of the leaderboard can follow. */
import { STYLE_MIN_VOTES } from '../../../domain/ratings/style-control';
import type { CoefficientRow } from '../../../infra/db/repositories/leaderboard.repository';

const FEATURE_LABELS: Record<string, string> = {
  length: 'Length',
  headers: 'Headers',
  list_items: 'List items',
  bold: 'Bold',
  position: 'Left side',
};

export interface StyleEffect {
  label: string;
  estimate: number;
  low: number;
  high: number;
  words: string;
}

/** Log-odds as the page prints them: three decimals. */
const shown = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A coefficient as the share of an otherwise even vote that the longer (more headed, listed,
 * bolded: by one standard deviation of the difference) answer wins, or the left one. An effect is
 * called clear only when the board has STYLE_MIN_VOTES votes or more and its interval (joint over
 * the five, see style-control.ts), as printed, leaves out zero; a feature no vote on the board
 * varies in (its differences all alike) was not measured. `boardVotes` is the votes the board counts.
 */
export function styleEffect(c: CoefficientRow, boardVotes: number): StyleEffect {
  const share = (x: number) => `${Math.round(100 / (1 + Math.exp(-x)))}%`;
  const label = FEATURE_LABELS[c.name] ?? c.name;
  const who =
    c.name === 'position'
      ? 'the answer shown on the left'
      : `the answer with more ${label.toLowerCase()} (by one standard deviation of the difference)`;
  const [estimate, low, high] = [shown(c.estimate), shown(c.ci_low), shown(c.ci_high)];
  let words: string;
  if (estimate === 0 && low === 0 && high === 0)
    words =
      c.name === 'position'
        ? 'Not measured yet: too few votes.'
        : `Not measured yet: too few votes whose answers differ in ${label.toLowerCase()}.`;
  else if (boardVotes < STYLE_MIN_VOTES)
    words = `Too few votes to tell: an effect is judged from ${STYLE_MIN_VOTES} votes on a board, and this one has ${boardVotes}.`;
  else if (low > 0 || high < 0)
    words = `Between two answers judges would otherwise split evenly, ${who} wins ${share(c.estimate)} of votes (${share(c.ci_low)}–${share(c.ci_high)}).`;
  else words = `No clear effect: ${who} wins ${share(c.ci_low)}–${share(c.ci_high)} of otherwise even votes.`;
  return { label, estimate: c.estimate, low: c.ci_low, high: c.ci_high, words };
}
