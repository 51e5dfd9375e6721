import { fitBoards, type BoardVote } from '../../../domain/ratings/boards';
import workerThreads from 'node:worker_threads';
import { fitBoardsInThreads, INLINE_FIT_COST } from '../../../activities/leaderboard-fit';
import { voteColumns } from '../../../activities/vote-columns';
import type { BattleVote } from '../../../domain/ratings/vote-table';
import { syntheticVotes } from './synthetic-votes';

/** Synthetic votes spread over two categories, with style differences that vary from vote to vote. */
const onBoards = (votes: BattleVote[]): BoardVote[] =>
  votes.map((v, i) => ({
    ...v,
    category: i % 3 ? 'math' : 'writing',
    features: [((i * 37) % 19) / 19 - 0.5, ((i * 11) % 7) / 7 - 0.5, 0, (i % 2) - 0.5],
  }));

describe('fitBoardsInThreads', () => {
  it('gives exactly the boards the same votes and options give on the calling thread, every outcome kind included', async () => {
    const votes = onBoards(syntheticVotes([1300, 1450, 1500, 1550, 1700], 3000, 8));
    const kinds = new Set(votes.map((v) => v.outcome));
    expect(kinds.size).toBeGreaterThanOrEqual(3);
    const options = { minVotes: 5, bootstrap: 20, seed: 11 };
    const here = fitBoards(votes, options);
    // One thread fits the six boards one after another; three share them, the largest first.
    for (const threads of [1, 3]) {
      const boards = await fitBoardsInThreads(voteColumns(votes), options, threads);
      expect(boards.map((b) => `${b.board}/${b.styleControl}`)).toEqual([
        'all/false',
        'all/true',
        'math/false',
        'math/true',
        'writing/false',
        'writing/true',
      ]);
      expect(boards).toEqual(here);
    }
  });

  it('fits no vote as the calling thread does: an empty overall board, raw and controlled', async () => {
    expect(await fitBoardsInThreads(voteColumns([]), { minVotes: 5, bootstrap: 5 }, 2, 0)).toEqual(
      fitBoards([], { minVotes: 5, bootstrap: 5 }),
    );
  });

  it('fits small boards on the calling thread, with the same boards the threads give, and starts a thread only past the threshold', async () => {
    const Original = workerThreads.Worker;
    let started = 0;
    workerThreads.Worker = class Counted extends Original {
      constructor(...args: ConstructorParameters<typeof Original>) {
        super(...args);
        started++;
      }
    };
    try {
      // 300 votes over six fits: a cost of 300 x (1 + 2.5) x 2 = 2,100, under the threshold.
      const votes = onBoards(syntheticVotes([1300, 1450, 1500, 1550, 1700], 300, 4));
      const options = { minVotes: 5, seed: 3 };
      const inline = await fitBoardsInThreads(voteColumns(votes), options, 2);
      expect(started).toBe(0);
      expect(inline).toEqual(fitBoards(votes, options));
      expect(inline).toEqual(await fitBoardsInThreads(voteColumns(votes), options, 2, 0));
      expect(started).toBe(2);
      // Bootstrap resamples count: the same votes with 10 resamples each cost 11 times as much.
      expect(2_100 * 11).toBeGreaterThan(INLINE_FIT_COST);
      await fitBoardsInThreads(voteColumns(votes), { ...options, bootstrap: 10 }, 2);
      expect(started).toBe(4);
    } finally {
      workerThreads.Worker = Original;
    }
  });

  it('leaves the calling thread free while it fits', async () => {
    // About a second here: long enough for the timer to fire many times, were the thread free.
    const votes = syntheticVotes(
      Array.from({ length: 100 }, (_, i) => 1000 + i * 8),
      20_000,
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
      await fitBoardsInThreads(voteColumns(onBoards(votes)), { minVotes: 5, bootstrap: 10, seed: 1 }, 2);
    } finally {
      clearInterval(ticker);
    }
    const took = performance.now() - started;
    // On the calling thread the timer could not fire until the fit was over: one gap as long as the fit.
    expect(ticks).toBeGreaterThan(10);
    expect(longestGap).toBeLessThan(took / 2);
  });

  it('rejects when the thread fails instead of hanging', async () => {
    const votes = onBoards(syntheticVotes([1400, 1600], 10, 1));
    await expect(fitBoardsInThreads(voteColumns(votes), { minVotes: 5, bootstrap: 0 }, 2, 0)).rejects.toThrow(
      'bootstrap resamples must be a positive integer',
    );
  });
});
