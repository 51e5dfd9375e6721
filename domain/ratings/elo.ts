/** The arena's Elo rule: how one judged battle moves the two agents' stored ratings. */
import type { Verdict } from '../arena';

export const INITIAL_ELO = 1500;
export const ELO_K = 32;
export const ELO_SCALE = 400;

/** A judge's verdict on a battle, as the rating rules take it. */
export type VoteOutcome = Verdict;

/**
 * A row of an agent's rating history: a vote's change; the same change taken back by an operator's
 * void (`void`) or by a hold on the votes (`hold`); or a held change given back when an operator
 * released the hold (`release`).
 */
export type RatingChangeKind = 'vote' | 'void' | 'hold' | 'release';

export interface EloMove {
  before: number;
  after: number;
  /** after - before, an integer when both ratings are. */
  delta: number;
}

export interface EloResult {
  a: EloMove;
  b: EloMove;
}

/** The probability that a side rated `ra` beats a side rated `rb`. */
export function expectedScore(ra: number, rb: number): number {
  return 1 / (1 + 10 ** ((rb - ra) / ELO_SCALE));
}

/** What side a scores: a win is 1, a loss 0; tie and both-bad are half a point to each side. */
export function scoreForA(outcome: VoteOutcome): number {
  switch (outcome) {
    case 'a':
      return 1;
    case 'b':
      return 0;
    case 'tie':
    case 'both_bad':
      return 0.5;
  }
}

/**
 * Ratings are stored as integers, so each new rating is the unrounded Elo result rounded half
 * away from zero (for the positive ratings the arena has, the same as `Math.round`). Rounding
 * the new rating rather than the delta keeps "after" the nearest integer to the exact value.
 *
 * Points are conserved: the exact changes are +d and -d, and for integer ratings the rounded
 * changes are round(d) and round(-d), which are opposite unless d ends in exactly .5. With
 * integer ratings that never happens (it would need 10^((rb - ra) / 400) to be a particular
 * rational number, and for an integer exponent K·E_a is 32/11, 32/101, ... never a half), so in
 * practice the sum of ratings is unchanged; in general the rounded sum moves by at most 1.
 *
 * `weight` scales K by the judge's standing (`domain/judges.ts`): 1 for an established judge, an
 * eighth for a new one, 0 for one whose votes an operator voided.
 */
export function eloUpdate(ra: number, rb: number, outcome: VoteOutcome, weight = 1): EloResult {
  const change = ELO_K * weight * (scoreForA(outcome) - expectedScore(ra, rb));
  const afterA = roundHalfAwayFromZero(ra + change);
  const afterB = roundHalfAwayFromZero(rb - change);
  return {
    a: { before: ra, after: afterA, delta: afterA - ra },
    b: { before: rb, after: afterB, delta: afterB - rb },
  };
}

function roundHalfAwayFromZero(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}
