/** Seeded synthetic battles drawn from known ratings, for the rating tests. */

import { ELO_PER_NAT, type BattleVote } from '../../../domain/ratings/bradley-terry';
import { expectedScore, type VoteOutcome } from '../../../domain/ratings/elo';
import { mulberry32, standardNormal } from '../../../domain/ratings/random';
import type { StyledVote } from '../../../domain/ratings/style-control';

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

export interface StyledArena {
  /** True strengths on the Elo scale, mean about 0; agent i + 1 has strength[i]. */
  strength: number[];
  votes: StyledVote[];
}

/**
 * `agents` agents with strengths drawn from N(0, sd) Elo, each writing answers of its own typical
 * length, and `count` votes on random pairs; the four style features (length, headers, list items,
 * bold) as the arena computes them, the last three at random. Judges add `lengthEffect` log-odds
 * per unit of the length ratio and `leftEffect` for the side shown first (side a), and nothing else.
 */
export function styledArena(
  agents: number,
  count: number,
  seed: number,
  judge: { sd?: number; lengthEffect?: number; leftEffect?: number } = {},
): StyledArena {
  const random = mulberry32(seed);
  const normal = standardNormal(mulberry32(seed + 1));
  const sd = judge.sd ?? 250;
  const strength = Array.from({ length: agents }, () => sd * normal());
  const verbosity = Array.from({ length: agents }, () => 800 * Math.exp(0.5 * normal()));
  const ratio = (x: number, y: number) => (x - y) / (x + y + 1);
  const small = (most: number) => Math.floor(random() * (most + 1));
  const votes: StyledVote[] = [];
  for (let v = 0; v < count; v++) {
    const [a, b] = randomPair(random, agents);
    const lengthA = verbosity[a - 1]! * Math.exp(0.3 * normal());
    const lengthB = verbosity[b - 1]! * Math.exp(0.3 * normal());
    const features = [
      ratio(lengthA, lengthB),
      ratio(small(3), small(3)),
      ratio(small(5), small(5)),
      ratio(small(2), small(2)),
    ];
    const logit =
      (strength[a - 1]! - strength[b - 1]!) / ELO_PER_NAT +
      (judge.lengthEffect ?? 0) * features[0]! +
      (judge.leftEffect ?? 0);
    // As honestVerdict: ties keep side a's expected score at the model's chance.
    const chance = 1 / (1 + Math.exp(-logit));
    const drawChance = 0.3 * Math.min(chance, 1 - chance);
    const outcome = random() < drawChance ? 'tie' : random() < (chance - drawChance / 2) / (1 - drawChance) ? 'a' : 'b';
    votes.push({ a, b, outcome, features });
  }
  return { strength, votes };
}
