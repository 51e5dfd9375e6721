import { fitLeaderboard, type BattleVote } from '../../../domain/ratings/bradley-terry';
import { mulberry32 } from '../../../domain/ratings/random';
import { randomPair, syntheticVotes } from './synthetic-votes';

const OUTCOMES = ['a', 'b', 'tie', 'both_bad'] as const;

function expectStrictlyInside(entries: ReturnType<typeof fitLeaderboard>): void {
  for (const entry of entries) {
    expect(entry.ciLow).toBeLessThan(entry.rating);
    expect(entry.ciHigh).toBeGreaterThan(entry.rating);
  }
}

describe('intervals of honest width from few votes', () => {
  it('gives one vote an interval of honest width around each rating', () => {
    const entries = fitLeaderboard([{ a: 1, b: 2, outcome: 'a' }], { seed: 20261122 });
    expectStrictlyInside(entries);
    // One vote says little: each interval is hundreds of points wide.
    for (const entry of entries) expect(entry.ciHigh - entry.ciLow).toBeGreaterThan(300);
  });

  it('gives a pair that always ended the same way an interval, however many votes', () => {
    const sweep: BattleVote[] = Array.from({ length: 8 }, () => ({ a: 3, b: 4, outcome: 'b' }));
    expectStrictlyInside(fitLeaderboard(sweep, { seed: 5 }));
    expectStrictlyInside(fitLeaderboard([{ a: 3, b: 4, outcome: 'tie' }], { seed: 5 }));
  });

  it('keeps every rating strictly inside its interval in small arenas of any shape', () => {
    const random = mulberry32(77);
    for (let arena = 0; arena < 60; arena++) {
      const agents = 2 + Math.floor(random() * 5);
      const count = 1 + Math.floor(random() * 25);
      const votes = Array.from({ length: count }, (): BattleVote => {
        const [a, b] = randomPair(random, agents);
        return { a, b, outcome: OUTCOMES[Math.floor(random() * OUTCOMES.length)]! };
      });
      expectStrictlyInside(fitLeaderboard(votes, { seed: arena + 1 }));
    }
  });

  it('bootstrap: the prior in every resample barely moves the intervals of agents with many votes', () => {
    // Ratings and 95% intervals of this arena and seed before the prior took part in the resamples.
    const before: Record<number, [number, number, number]> = {
      5: [1694.934, 1674.272, 1715.241],
      4: [1596.734, 1575.62, 1615.359],
      3: [1490.218, 1466.781, 1505.844],
      2: [1409.209, 1390.747, 1428.617],
      1: [1308.906, 1291.606, 1328.742],
    };
    const entries = fitLeaderboard(syntheticVotes([1300, 1400, 1500, 1600, 1700], 2000, 5), {
      bootstrap: 100,
      seed: 7,
      priorSd: 1000,
    });
    expect(entries.map((entry) => entry.agentId)).toEqual([5, 4, 3, 2, 1]);
    for (const entry of entries) {
      const [rating, low, high] = before[entry.agentId]!;
      expect(entry.rating).toBeCloseTo(rating, 2);
      expect(Math.abs(entry.ciLow - low)).toBeLessThan(1);
      expect(Math.abs(entry.ciHigh - high)).toBeLessThan(1);
    }
  });
});
