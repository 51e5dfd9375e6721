/**
 * The leaderboards' fits in worker threads: at a million votes they are minutes of CPU, and on the
 * worker's own thread they would stall every workflow task and activity the worker holds for that
 * long. The votes are shared with the threads as columns of numbers (one copy, read by all); each
 * thread fits one board at a time, the largest first, so the fits spread over the threads evenly.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { boardFits, type BoardFit, type BoardOptions, type FittedBoard } from '../domain/ratings/boards';
import { fitOne, type FitRequest } from './leaderboard-fit.thread';
import type { VoteColumns } from './vote-columns';

const THREAD_FILE = path.join(__dirname, `leaderboard-fit.thread${path.extname(__filename)}`);

/** Run from TypeScript sources (tests, `tsx`), the thread compiles its file the same way; built, it runs the JavaScript. */
function startThread(request: FitRequest): Worker {
  const options = { workerData: request };
  return THREAD_FILE.endsWith('.ts')
    ? new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(THREAD_FILE)});`, {
        ...options,
        eval: true,
      })
    : new Worker(THREAD_FILE, options);
}

/** A controlled fit costs about two and a half raw ones of the same votes (measured: bench/README.md). */
const CONTROLLED_COST = 2.5;

/**
 * Fits that cost less than this together (in votes fitted, a controlled fit counting
 * CONTROLLED_COST and each bootstrap resample one more) run on the calling thread: at most about
 * 50 ms of fitting, while starting two threads costs about 110 ms of CPU whatever the fits (a
 * refresh of 300 votes: 110 ms of CPU on threads, under 5 ms here). A new arena's boards are this small.
 */
export const INLINE_FIT_COST = 10_000;

/**
 * fitBoards, over `threads` worker threads (at most one per core, and one per fit). The boards
 * come back in fitBoards' order, and are the same whatever the number of threads: each fit is
 * computed whole by one thread.
 */
export async function fitBoardsInThreads(
  columns: VoteColumns,
  options: Omit<BoardOptions, 'only'>,
  threads: number,
  inlineBelow = INLINE_FIT_COST,
): Promise<FittedBoard[]> {
  const [boards] = await fitBoardSetsInThreads([columns], options, threads, inlineBelow);
  return boards!;
}

/**
 * fitBoardsInThreads for several sets of votes at once (the agents' votes, and the same votes
 * with the agents' claims as players), on one set of threads: each set's boards, in its order.
 * Fits that cost less than `inlineBelow` together run on the calling thread instead.
 */
export async function fitBoardSetsInThreads(
  sets: readonly VoteColumns[],
  options: Omit<BoardOptions, 'only'>,
  threads: number,
  inlineBelow = INLINE_FIT_COST,
): Promise<FittedBoard[][]> {
  const jobs: Job[] = sets.flatMap((columns, set) => {
    const onBoard = new Map<string, number>();
    for (let k = 0; k < columns.count; k++) {
      const category = columns.categories[columns.category[k]!]!;
      onBoard.set(category, (onBoard.get(category) ?? 0) + 1);
    }
    const cost = (fit: BoardFit) =>
      (fit.styleControl ? CONTROLLED_COST : 1) *
      (1 + (options.bootstrap ?? 0)) *
      (onBoard.get(fit.board) ?? columns.count);
    return boardFits([...onBoard.keys()].map((category) => ({ category }))).map((fit, index) => ({
      job: { ...fit, set },
      index,
      cost: cost(fit),
    }));
  });
  const queue = jobs.sort((x, y) => y.cost - x.cost);
  const results: FittedBoard[][] = sets.map(() => []);
  const keep = (job: Job, board: FittedBoard | undefined) => {
    if (board) results[job.job.set]![job.index] = board;
  };
  if (queue.reduce((sum, job) => sum + job.cost, 0) < inlineBelow) {
    for (const job of queue) keep(job, fitOne(sets, job.job, options));
  } else {
    await fitInThreads(queue, { kind: 'leaderboard-fit', sets: [...sets], options }, threads, keep);
  }
  return results.map((boards) => boards.filter((board) => board !== undefined));
}

interface Job {
  job: BoardFit & { set: number };
  /** The fit's place among its set's boards. */
  index: number;
  cost: number;
}

/** Hands the queued fits, largest first, to `threads` threads as each finishes its last. */
async function fitInThreads(
  queue: Job[],
  request: FitRequest,
  threads: number,
  keep: (job: Job, board: FittedBoard | undefined) => void,
): Promise<void> {
  const count = Math.max(1, Math.min(threads, availableParallelism(), queue.length));
  const workers = Array.from({ length: count }, () => startThread(request));
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            let current: Job | undefined;
            const next = () => {
              current = queue.shift();
              if (!current) return resolve();
              worker.postMessage(current.job);
            };
            worker.on('message', (board: FittedBoard | undefined) => {
              keep(current!, board);
              next();
            });
            worker.once('error', reject);
            worker.once('exit', (code) => {
              reject(new Error(`a leaderboard fit's thread stopped (exit code ${code}) before its fits were done`));
            });
            next();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
