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
  const request: FitRequest = { kind: 'leaderboard-fit', columns, options };
  const onBoard = new Map<string, number>();
  for (let k = 0; k < columns.count; k++) {
    const category = columns.categories[columns.category[k]!]!;
    onBoard.set(category, (onBoard.get(category) ?? 0) + 1);
  }
  const fits = boardFits([...onBoard.keys()].map((category) => ({ category })));
  const cost = (fit: BoardFit) => (fit.styleControl ? CONTROLLED_COST : 1) * (onBoard.get(fit.board) ?? columns.count);
  const queue = fits.map((fit, index) => ({ fit, index })).sort((x, y) => cost(y.fit) - cost(x.fit));
  const results: FittedBoard[] = [];
  const count = Math.max(1, Math.min(threads, availableParallelism(), fits.length));
  const workers = Array.from({ length: count }, () => startThread(request));
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            let current: number | undefined;
            const next = () => {
              const job = queue.shift();
              if (!job) return resolve();
              current = job.index;
              worker.postMessage(job.fit);
            };
            worker.on('message', (board: FittedBoard | undefined) => {
              if (board) results[current!] = board;
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
  return results.filter((board) => board !== undefined);
}
