/** Seeded synthetic battles drawn from known ratings, for the rating tests. */

import type { BattleVote } from '../../domain/ratings/bradley-terry';
import { expectedScore, type VoteOutcome } from '../../domain/ratings/elo';
import { mulberry32 } from '../../domain/ratings/random';

/** Agent ids are 1..ratings.length; agent i has true rating ratings[i - 1]. */
export function syntheticVotes(ratings: readonly number[], count: number, seed: number): BattleVote[] {
  const random = mulberry32(seed);
  const votes: BattleVote[] = [];
  for (let v = 0; v < count; v++) {
    const [a, b] = randomPair(random, ratings.length);
    // randomPair gives ids in 1..ratings.length.
    votes.push({ a, b, outcome: honestVerdict(random, ratings[a - 1]!, ratings[b - 1]!) });
  }
  return votes;
}

export function randomPair(random: () => number, agents: number): [number, number] {
  const a = Math.floor(random() * agents);
  let b = Math.floor(random() * (agents - 1));
  if (b >= a) b += 1;
  return [a + 1, b + 1];
}

/**
 * A verdict whose expected score for a (wins + half of ties) is exactly the Elo/Bradley-Terry
 * expectation, so ratings fitted with ties as half-wins should recover the true ones. Close
 * battles end in a tie or both-bad more often.
 */
export function honestVerdict(random: () => number, ra: number, rb: number): VoteOutcome {
  const expected = expectedScore(ra, rb);
  const drawChance = 0.3 * Math.min(expected, 1 - expected);
  const draw = random();
  if (draw < drawChance) return draw < drawChance / 2 ? 'tie' : 'both_bad';
  return random() < (expected - drawChance / 2) / (1 - drawChance) ? 'a' : 'b';
}

/** True ratings shifted so their mean is 1500, the anchor the fit uses. */
export function anchored(ratings: readonly number[]): number[] {
  const mean = ratings.reduce((sum, rating) => sum + rating, 0) / ratings.length;
  return ratings.map((rating) => rating - mean + 1500);
}
