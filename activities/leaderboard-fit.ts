/**
 * The leaderboards' fits in worker threads: at a million votes they are minutes of CPU, and on the
 * worker's own thread they would stall every workflow task and activity the worker holds for that
 * long. The votes are shared with the threads as typed arrays (one copy, read by all); each thread
 * fits one board at a time, the largest first, so the fits spread over the threads evenly.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { VERDICTS } from '../domain/arena';
import {
  boardFits,
  type BoardFit,
  type BoardOptions,
  type BoardVote,
  type FittedBoard,
} from '../domain/ratings/boards';
import type { FitRequest } from './leaderboard-fit.thread';

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

/** A typed array over memory every thread can read. */
function shared<T>(Type: { new (buffer: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, length: number): T {
  return new Type(new SharedArrayBuffer(length * Type.BYTES_PER_ELEMENT));
}

/** A controlled fit costs about three raw ones of the same votes (measured: bench/README.md). */
const CONTROLLED_COST = 3;

/**
 * fitBoards, over `threads` worker threads (at most one per core, and one per fit). Every vote
 * carries as many style features as the first. The boards come back in fitBoards' order, and are
 * the same whatever the number of threads: each fit is computed whole by one thread.
 */
export async function fitBoardsInThreads(
  votes: readonly BoardVote[],
  options: Omit<BoardOptions, 'only'>,
  threads: number,
): Promise<FittedBoard[]> {
  const featureCount = votes[0]?.features.length ?? 0;
  const categories = [...new Set(votes.map((v) => v.category))];
  const categoryIndex = new Map(categories.map((c, i) => [c, i]));
  const request: FitRequest = {
    kind: 'leaderboard-fit',
    a: shared(Int32Array, votes.length),
    b: shared(Int32Array, votes.length),
    outcome: shared(Uint8Array, votes.length),
    category: shared(Uint16Array, votes.length),
    categories,
    features: shared(Float64Array, votes.length * featureCount),
    featureCount,
    options,
  };
  const onBoard = new Map<string, number>();
  votes.forEach((vote, i) => {
    if (vote.features.length !== featureCount)
      throw new RangeError(`every vote needs ${featureCount} style features; one has ${vote.features.length}`);
    request.a[i] = vote.a;
    request.b[i] = vote.b;
    request.outcome[i] = VERDICTS.indexOf(vote.outcome);
    request.category[i] = categoryIndex.get(vote.category)!;
    request.features.set(vote.features, i * featureCount);
    onBoard.set(vote.category, (onBoard.get(vote.category) ?? 0) + 1);
  });

  const fits = boardFits(votes);
  const cost = (fit: BoardFit) => (fit.styleControl ? CONTROLLED_COST : 1) * (onBoard.get(fit.board) ?? votes.length);
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
