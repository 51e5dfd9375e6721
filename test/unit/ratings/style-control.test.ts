/** The style-controlled fit against a simulated arena whose judges are known to prefer long answers and the left side. */
import { PRIOR_SD, fitLeaderboard } from '../../../domain/ratings/bradley-terry';
import { ELO_SCALE } from '../../../domain/ratings/elo';
import { mulberry32, standardNormal } from '../../../domain/ratings/random';
import { POSITION, fitStyleControlled, styleCovariates, type StyledVote } from '../../../domain/ratings/style-control';
import { tabulateVotes } from '../../../domain/ratings/vote-table';
import { anchored, randomPair } from './synthetic-votes';

const ELO_PER_NAT = ELO_SCALE / Math.LN10;
const NAMES = ['length', 'headers'];

interface Arena {
  /** True strengths on the Elo scale; agent i + 1 has strength[i]. */
  strength: number[];
  /** Each agent's typical answer length, in characters. */
  verbosity: number[];
  /** Log-odds a judge adds per unit of the length ratio (a - b) / (a + b + 1), and for the left side. */
  lengthEffect: number;
  leftEffect: number;
}

/**
 * Votes from judges who weigh strength, length and position as `arena` says, and nothing else:
 * headers vary at random and never sway a vote. Side a is the left one.
 */
function simulate(arena: Arena, count: number, seed: number): StyledVote[] {
  const random = mulberry32(seed);
  const normal = standardNormal(mulberry32(seed + 1));
  const ratio = (x: number, y: number) => (x - y) / (x + y + 1);
  const votes: StyledVote[] = [];
  for (let v = 0; v < count; v++) {
    const [a, b] = randomPair(random, arena.strength.length);
    const lengthA = arena.verbosity[a - 1]! * Math.exp(0.3 * normal());
    const lengthB = arena.verbosity[b - 1]! * Math.exp(0.3 * normal());
    const features = [ratio(lengthA, lengthB), ratio(Math.floor(random() * 4), Math.floor(random() * 4))];
    const logit =
      (arena.strength[a - 1]! - arena.strength[b - 1]!) / ELO_PER_NAT +
      arena.lengthEffect * features[0]! +
      arena.leftEffect;
    const draw = random();
    const outcome = draw < 0.05 ? 'tie' : random() < 1 / (1 + Math.exp(-logit)) ? 'a' : 'b';
    votes.push({ a, b, outcome, features });
  }
  return votes;
}

// The weakest agents write the longest answers: a judge's taste for length lifts them.
const ARENA: Arena = {
  strength: [1300, 1380, 1450, 1500, 1550, 1620, 1700],
  verbosity: [3000, 2200, 1500, 900, 600, 400, 250],
  lengthEffect: 2.5,
  leftEffect: 0.25,
};

describe('fitStyleControlled', () => {
  const votes = simulate(ARENA, 20_000, 7);
  const truth = anchored(ARENA.strength);
  const controlled = fitStyleControlled(votes, { featureNames: NAMES });
  const raw = fitLeaderboard(votes);
  const rating = (entries: { agentId: number; rating: number }[], id: number) =>
    entries.find((e) => e.agentId === id)!.rating;

  it('recovers the true strengths where the raw fit, swayed by length, does not', () => {
    const controlledError = Math.max(...truth.map((t, i) => Math.abs(rating(controlled.entries, i + 1) - t)));
    const rawError = Math.max(...truth.map((t, i) => Math.abs(rating(raw, i + 1) - t)));
    expect(controlledError).toBeLessThan(25);
    expect(rawError).toBeGreaterThan(150);
    // The raw fit even inverts the order at the bottom; the controlled one keeps it.
    expect(controlled.entries.map((e) => e.agentId)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(raw.map((e) => e.agentId)).not.toEqual([7, 6, 5, 4, 3, 2, 1]);
    for (const [i, t] of truth.entries()) {
      const entry = controlled.entries.find((e) => e.agentId === i + 1)!;
      expect(entry.ciLow).toBeLessThan(t + 10);
      expect(entry.ciHigh).toBeGreaterThan(t - 10);
    }
  });

  it('measures the length and left-side effects, and finds none for headers', () => {
    const [length, headers, position] = controlled.coefficients;
    expect(controlled.coefficients.map((c) => c.name)).toEqual([...NAMES, POSITION]);
    // Length is standardised: its coefficient is the effect per standard deviation of the ratio.
    const ratios = votes.map((v) => v.features[0]!);
    const mean = ratios.reduce((s, r) => s + r, 0) / ratios.length;
    const sd = Math.sqrt(ratios.reduce((s, r) => s + (r - mean) ** 2, 0) / ratios.length);
    expect(length!.estimate / sd).toBeCloseTo(ARENA.lengthEffect, 0);
    expect(length!.ciLow).toBeGreaterThan(0);
    expect(headers!.ciLow).toBeLessThan(0);
    expect(headers!.ciHigh).toBeGreaterThan(0);
    expect(position!.ciLow).toBeLessThan(ARENA.leftEffect);
    expect(position!.ciHigh).toBeGreaterThan(ARENA.leftEffect);
    expect(position!.ciLow).toBeGreaterThan(0);
  });

  it('stops at the optimum: the penalised likelihood is flat in every strength and coefficient', () => {
    const table = tabulateVotes(votes);
    const { x } = styleCovariates(table, votes, NAMES);
    const K = NAMES.length + 1;
    const n = table.agentIds.length;
    // With the prior centred at zero the fitted log-strengths sum to zero, so the ratings give them back.
    const theta = Array.from(table.agentIds, (id) => (rating(controlled.entries, id) - 1500) / ELO_PER_NAT);
    const beta = controlled.coefficients.map((c) => c.estimate);
    const priorPrecision = (ELO_PER_NAT / PRIOR_SD) ** 2;
    const gradient = [...theta.map((t) => -priorPrecision * t), ...beta.map((b) => -1e-3 * b)];
    let v = 0;
    for (const vote of votes) {
      const position = table.votePosition[v++]!;
      const a = vote.a - 1;
      const b = vote.b - 1;
      // The covariates are stored toward the pair's first (lower) agent; turn them back toward side a.
      const sign = vote.a < vote.b ? 1 : -1;
      let gap = theta[a]! - theta[b]!;
      for (let k = 0; k < K; k++) gap += beta[k]! * sign * x[position * K + k]!;
      const score = vote.outcome === 'a' ? 1 : vote.outcome === 'b' ? 0 : 0.5;
      const surprise = score - 1 / (1 + Math.exp(-gap));
      gradient[a]! += surprise;
      gradient[b]! -= surprise;
      for (let k = 0; k < K; k++) gradient[n + k]! += surprise * sign * x[position * K + k]!;
    }
    // A vote's surprise is up to 1; twenty thousand of them cancel to a ten-thousandth.
    for (const g of gradient) expect(Math.abs(g)).toBeLessThan(1e-4);
  });

  it('is the raw board when judges care for nothing but strength: the same order, ratings within the intervals', () => {
    const plain = simulate({ ...ARENA, lengthEffect: 0, leftEffect: 0 }, 8_000, 11);
    const styled = fitStyleControlled(plain, { featureNames: NAMES });
    const unstyled = fitLeaderboard(plain);
    expect(styled.entries.map((e) => e.agentId)).toEqual(unstyled.map((e) => e.agentId));
    for (const entry of styled.entries) {
      const other = unstyled.find((e) => e.agentId === entry.agentId)!;
      expect(Math.abs(entry.rating - other.rating)).toBeLessThan(other.ciHigh - other.ciLow);
      expect({ votes: entry.votes, wins: entry.wins, ties: entry.ties }).toEqual({
        votes: other.votes,
        wins: other.wins,
        ties: other.ties,
      });
    }
    for (const c of styled.coefficients) {
      expect(c.ciLow).toBeLessThan(0);
      expect(c.ciHigh).toBeGreaterThan(0);
    }
  });

  it('gives identical output for identical input and seed; ignores self-votes; nothing for no votes', () => {
    const few = votes.slice(0, 500);
    expect(fitStyleControlled(few, { featureNames: NAMES, bootstrap: 10, seed: 5 })).toEqual(
      fitStyleControlled(few, { featureNames: NAMES, bootstrap: 10, seed: 5 }),
    );
    const withSelf = [...few, { a: 3, b: 3, outcome: 'a' as const, features: [0.9, 0.9] }];
    expect(fitStyleControlled(withSelf, { featureNames: NAMES, bootstrap: 10, seed: 5 })).toEqual(
      fitStyleControlled(few, { featureNames: NAMES, bootstrap: 10, seed: 5 }),
    );
    expect(fitStyleControlled([], { featureNames: NAMES })).toEqual({ entries: [], coefficients: [] });
  });

  it('keeps an unbeaten agent finite, and refuses votes without their features or bad options', () => {
    const unbeaten: StyledVote[] = Array.from({ length: 20 }, (_, i) => ({
      a: 1,
      b: 2 + (i % 3),
      outcome: 'a' as const,
      features: [i % 2 ? 0.3 : -0.3, 0],
    }));
    const board = fitStyleControlled(unbeaten, { featureNames: NAMES });
    expect(board.entries[0]!.agentId).toBe(1);
    for (const e of board.entries) expect(Number.isFinite(e.rating) && e.ciHigh > e.ciLow).toBe(true);
    expect(() => fitStyleControlled([{ a: 1, b: 2, outcome: 'a', features: [0] }], { featureNames: NAMES })).toThrow(
      /2 style features/,
    );
    expect(() => fitStyleControlled(unbeaten, { featureNames: NAMES, bootstrap: 0 })).toThrow(RangeError);
  });
});
