import { fitLeaderboard } from '../../domain/ratings/bradley-terry';
import { fitLeaderboardInThread } from '../../activities/leaderboard-fit';
import { syntheticVotes } from './synthetic-votes';

describe('fitLeaderboardInThread', () => {
  it('gives exactly the fit the same votes and options give on the calling thread, every outcome kind included', async () => {
    const votes = syntheticVotes([1300, 1450, 1500, 1550, 1700], 3000, 8);
    const kinds = new Set(votes.map((v) => v.outcome));
    expect(kinds.size).toBeGreaterThanOrEqual(3);
    const options = { resamples: 20, seed: 11 };
    expect(await fitLeaderboardInThread(votes, options)).toEqual(fitLeaderboard(votes, options));
  });

  it('leaves the calling thread free while it fits', async () => {
    // Large enough to take a good part of a second on any machine.
    const votes = syntheticVotes(
      Array.from({ length: 400 }, (_, i) => 1000 + i * 2),
      200_000,
      3,
    );
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 5);
    const started = performance.now();
    try {
      await fitLeaderboardInThread(votes, { resamples: 30, seed: 1 });
    } finally {
      clearInterval(ticker);
    }
    const took = performance.now() - started;
    // On the calling thread the timer could not fire until the fit was over: one gap as long as the fit.
    expect(ticks).toBeGreaterThan(10);
    expect(longestGap).toBeLessThan(took / 2);
  });

  it('rejects when the thread fails instead of hanging', async () => {
    await expect(fitLeaderboardInThread([], { resamples: 0 })).rejects.toThrow('resamples must be a positive integer');
  });
});
