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
import type { FitRequest } from './leaderboard-fit.thread';
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
 * fitBoards, over `threads` worker threads (at most one per core, and one per fit). The boards
 * come back in fitBoards' order, and are the same whatever the number of threads: each fit is
 * computed whole by one thread.
 */
export async function fitBoardsInThreads(
  columns: VoteColumns,
  options: Omit<BoardOptions, 'only'>,
  threads: number,
): Promise<FittedBoard[]> {
  const [boards] = await fitBoardSetsInThreads([columns], options, threads);
  return boards!;
}

/**
 * fitBoardsInThreads for several sets of votes at once (the agents' votes, and the same votes
 * with the agents' claims as players), on one set of threads: each set's boards, in its order.
 */
export async function fitBoardSetsInThreads(
  sets: readonly VoteColumns[],
  options: Omit<BoardOptions, 'only'>,
  threads: number,
): Promise<FittedBoard[][]> {
  const request: FitRequest = { kind: 'leaderboard-fit', sets: [...sets], options };
  const jobs = sets.flatMap((columns, set) => {
    const onBoard = new Map<string, number>();
    for (let k = 0; k < columns.count; k++) {
      const category = columns.categories[columns.category[k]!]!;
      onBoard.set(category, (onBoard.get(category) ?? 0) + 1);
    }
    const cost = (fit: BoardFit) =>
      (fit.styleControl ? CONTROLLED_COST : 1) * (onBoard.get(fit.board) ?? columns.count);
    return boardFits([...onBoard.keys()].map((category) => ({ category }))).map((fit, index) => ({
      job: { ...fit, set },
      index,
      cost: cost(fit),
    }));
  });
  const queue = jobs.sort((x, y) => y.cost - x.cost);
  const results: FittedBoard[][] = sets.map(() => []);
  const count = Math.max(1, Math.min(threads, availableParallelism(), queue.length));
  const workers = Array.from({ length: count }, () => startThread(request));
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            let current: (typeof queue)[number] | undefined;
            const next = () => {
              current = queue.shift();
              if (!current) return resolve();
              worker.postMessage(current.job);
            };
            worker.on('message', (board: FittedBoard | undefined) => {
              if (board) results[current!.job.set]![current!.index] = board;
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
  return results.map((boards) => boards.filter((board) => board !== undefined));
}
