import { fitLeaderboard, rankByIntervals, type BattleVote } from '../../../domain/ratings/bradley-terry';
import { anchored, syntheticVotes } from './synthetic-votes';

function repeat(count: number, vote: BattleVote): BattleVote[] {
  return Array.from({ length: count }, () => vote);
}

describe('fitLeaderboard', () => {
  it('matches the closed-form fit for two agents', () => {
    // 3 wins in 4 means odds of 3, a gap of 400·log10(3) = 190.85 points around the mean.
    const threeOfFour = [...repeat(3, { a: 1, b: 2, outcome: 'a' }), { a: 2, b: 1, outcome: 'a' } as const];
    const [first, second] = fitLeaderboard(threeOfFour, { priorSd: 1e7 });
    expect(first?.agentId).toBe(1);
    expect(first?.rating).toBeCloseTo(1500 + 200 * Math.log10(3), 3);
    expect(second?.rating).toBeCloseTo(1500 - 200 * Math.log10(3), 3);

    // A win and two ties score 2 of 3: odds of 2.
    const withTies: BattleVote[] = [
      { a: 7, b: 9, outcome: 'a' },
      { a: 7, b: 9, outcome: 'tie' },
      { a: 9, b: 7, outcome: 'both_bad' },
    ];
    const [top, bottom] = fitLeaderboard(withTies, { priorSd: 1e7 });
    expect(top!.rating - bottom!.rating).toBeCloseTo(400 * Math.log10(2), 3);
    expect(top).toMatchObject({ agentId: 7, votes: 3, wins: 1, losses: 0, ties: 2 });
    expect(bottom).toMatchObject({ agentId: 9, votes: 3, wins: 0, losses: 1, ties: 2 });
  });

  it('recovers a known ordering, anchored at a mean of 1500', () => {
    const truth = Array.from({ length: 12 }, (_, i) => 1200 + 60 * i);
    const entries = fitLeaderboard(syntheticVotes(truth, 8000, 11), { seed: 3 });
    expect(entries.map((entry) => entry.agentId)).toEqual(truth.map((_, i) => 12 - i));
    const mean = entries.reduce((sum, entry) => sum + entry.rating, 0) / entries.length;
    expect(mean).toBeCloseTo(1500, 9);
    const expected = anchored(truth);
    for (const entry of entries) expect(Math.abs(entry.rating - expected[entry.agentId - 1]!)).toBeLessThan(40);
  });

  it('gives 95% intervals that cover the true ratings for most agents', () => {
    // Pooled over six independent arenas, so the check does not hang on one lucky draw.
    const truth = Array.from({ length: 30 }, (_, i) => 1150 + 25 * i);
    const expected = anchored(truth);
    let covered = 0;
    let total = 0;
    for (let arena = 1; arena <= 6; arena++) {
      const entries = fitLeaderboard(syntheticVotes(truth, 6000, 20 + arena), { seed: arena });
      for (const entry of entries) {
        const target = expected[entry.agentId - 1]!;
        if (entry.ciLow <= target && target <= entry.ciHigh) covered += 1;
        total += 1;
        expect(entry.ciLow).toBeLessThan(entry.rating);
        expect(entry.ciHigh).toBeGreaterThan(entry.rating);
      }
    }
    expect(covered / total).toBeGreaterThanOrEqual(0.9);
  });

  it('keeps an agent that won every vote finite, and on top', () => {
    const votes = [
      ...syntheticVotes([1400, 1500, 1600], 300, 8),
      ...Array.from({ length: 30 }, (_, i): BattleVote => ({ a: 4, b: 1 + (i % 3), outcome: 'a' })),
      ...Array.from({ length: 30 }, (_, i): BattleVote => ({ a: 1 + (i % 3), b: 5, outcome: 'a' })),
    ];
    const entries = fitLeaderboard(votes);
    const unbeaten = entries.find((entry) => entry.agentId === 4)!;
    const winless = entries.find((entry) => entry.agentId === 5)!;
    expect(entries[0]?.agentId).toBe(4);
    expect(entries.at(-1)?.agentId).toBe(5);
    for (const entry of [unbeaten, winless]) {
      for (const value of [entry.rating, entry.ciLow, entry.ciHigh]) expect(Number.isFinite(value)).toBe(true);
    }
    expect(unbeaten).toMatchObject({ votes: 30, wins: 30, losses: 0, ties: 0 });
  });

  it('gives identical output for identical input and seed; the seed moves only the intervals', () => {
    const votes = syntheticVotes([1300, 1450, 1500, 1700], 500, 2);
    const once = fitLeaderboard(votes, { bootstrap: 50, seed: 42 });
    expect(fitLeaderboard(votes, { bootstrap: 50, seed: 42 })).toEqual(once);
    const reseeded = fitLeaderboard(votes, { bootstrap: 50, seed: 43 });
    expect(reseeded.map((entry) => entry.rating)).toEqual(once.map((entry) => entry.rating));
    expect(reseeded.map((entry) => entry.ciLow)).not.toEqual(once.map((entry) => entry.ciLow));
  });

  it('ignores self-votes, returns nothing for no votes and refuses bad options', () => {
    expect(fitLeaderboard([])).toEqual([]);
    expect(fitLeaderboard([{ a: 3, b: 3, outcome: 'a' }])).toEqual([]);
    expect(() => fitLeaderboard([], { bootstrap: 0 })).toThrow(RangeError);
    expect(() => fitLeaderboard([], { confidence: 1 })).toThrow(RangeError);
  });

  // Its speed is measured by the benchmarks (npm run bench), not here.
  it('orders 100 agents from 50,000 votes almost exactly as their true ratings', () => {
    const truth = Array.from({ length: 100 }, (_, i) => 1000 + 10 * i);
    const votes = syntheticVotes(truth, 50_000, 99);
    const entries = fitLeaderboard(votes);
    expect(entries).toHaveLength(100);
    // Spearman's rank correlation between fitted order and true order.
    const fittedRank = new Map(entries.map((e, i) => [e.agentId, i]));
    const n = truth.length;
    // Agent k (1-based) has the k-th lowest true rating, so it belongs at position n - k, best first.
    const d2 = truth.reduce((sum, _t, i) => sum + (n - (i + 1) - fittedRank.get(i + 1)!) ** 2, 0);
    expect(1 - (6 * d2) / (n * (n * n - 1))).toBeGreaterThan(0.98);
  }, 60_000);
});

describe('rankByIntervals', () => {
  it('ranks an agent below only those whose whole interval is above its own', () => {
    const ranked = rankByIntervals([
      { agentId: 1, ciLow: 1600, ciHigh: 1700 },
      { agentId: 2, ciLow: 1550, ciHigh: 1650 },
      { agentId: 3, ciLow: 1400, ciHigh: 1540 },
      { agentId: 4, ciLow: 1300, ciHigh: 1450 },
      { agentId: 5, ciLow: 1100, ciHigh: 1200 },
    ]);
    expect(ranked.map((entry) => [entry.agentId, entry.rank])).toEqual([
      [1, 1],
      [2, 1],
      [3, 3],
      [4, 3],
      [5, 5],
    ]);
  });

  it('treats touching intervals as overlapping', () => {
    const ranked = rankByIntervals([
      { ciLow: 1500, ciHigh: 1600 },
      { ciLow: 1400, ciHigh: 1500 },
    ]);
    expect(ranked.map((entry) => entry.rank)).toEqual([1, 1]);
  });
});
