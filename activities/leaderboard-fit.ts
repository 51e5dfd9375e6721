/**
 * The leaderboards' fits in a worker thread: at a million votes they are a minute of CPU, and on
 * the worker's own thread they would stall every workflow task and activity the worker holds for
 * that long. The votes cross as typed arrays (moved, not copied).
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { VERDICTS } from '../domain/arena';
import type { BoardOptions, BoardVote, FittedBoard } from '../domain/ratings/boards';
import type { FitRequest } from './leaderboard-fit.thread';

const THREAD_FILE = path.join(__dirname, `leaderboard-fit.thread${path.extname(__filename)}`);

/** Run from TypeScript sources (tests, `tsx`), the thread compiles its file the same way; built, it runs the JavaScript. */
function startThread(request: FitRequest, transfer: ArrayBuffer[]): Worker {
  const options = { workerData: request, transferList: transfer };
  return THREAD_FILE.endsWith('.ts')
    ? new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(THREAD_FILE)});`, {
        ...options,
        eval: true,
      })
    : new Worker(THREAD_FILE, options);
}

/** fitBoards, on a thread of its own. Every vote carries as many style features as the first. */
export function fitBoardsInThread(votes: readonly BoardVote[], options: BoardOptions): Promise<FittedBoard[]> {
  const featureCount = votes[0]?.features.length ?? 0;
  const categories = [...new Set(votes.map((v) => v.category))];
  const categoryIndex = new Map(categories.map((c, i) => [c, i]));
  const a = new Int32Array(votes.length);
  const b = new Int32Array(votes.length);
  const outcome = new Uint8Array(votes.length);
  const category = new Uint16Array(votes.length);
  const features = new Float64Array(votes.length * featureCount);
  votes.forEach((vote, i) => {
    if (vote.features.length !== featureCount)
      throw new RangeError(`every vote needs ${featureCount} style features; one has ${vote.features.length}`);
    a[i] = vote.a;
    b[i] = vote.b;
    outcome[i] = VERDICTS.indexOf(vote.outcome);
    category[i] = categoryIndex.get(vote.category)!;
    features.set(vote.features, i * featureCount);
  });
  return new Promise((resolve, reject) => {
    const request: FitRequest = {
      kind: 'leaderboard-fit',
      a,
      b,
      outcome,
      category,
      categories,
      features,
      featureCount,
      options,
    };
    const thread = startThread(request, [a.buffer, b.buffer, outcome.buffer, category.buffer, features.buffer]);
    let answered = false;
    thread.once('message', (boards: FittedBoard[]) => {
      answered = true;
      resolve(boards);
    });
    thread.once('error', reject);
    thread.once('exit', (code) => {
      if (!answered) reject(new Error(`the leaderboard fit's thread stopped (exit code ${code}) without an answer`));
    });
  });
}
