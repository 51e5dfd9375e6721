/**
 * The leaderboard's Bradley-Terry fit in a worker thread: at a million votes it is tens of seconds of
 * CPU, and on the worker's own thread it would stall every workflow task and activity the worker
 * holds for that long. The votes cross as typed arrays (moved, not copied).
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { BattleVote, LeaderboardEntry, LeaderboardOptions } from '../domain/ratings/bradley-terry';
import { VERDICTS } from '../domain/arena';
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

export function fitLeaderboardInThread(
  votes: readonly BattleVote[],
  options: LeaderboardOptions,
): Promise<LeaderboardEntry[]> {
  const a = new Int32Array(votes.length);
  const b = new Int32Array(votes.length);
  const outcome = new Uint8Array(votes.length);
  votes.forEach((vote, i) => {
    a[i] = vote.a;
    b[i] = vote.b;
    outcome[i] = VERDICTS.indexOf(vote.outcome);
  });
  return new Promise((resolve, reject) => {
    const thread = startThread({ kind: 'leaderboard-fit', a, b, outcome, options }, [
      a.buffer,
      b.buffer,
      outcome.buffer,
    ]);
    let answered = false;
    thread.once('message', (entries: LeaderboardEntry[]) => {
      answered = true;
      resolve(entries);
    });
    thread.once('error', reject);
    thread.once('exit', (code) => {
      if (!answered) reject(new Error(`the leaderboard fit's thread stopped (exit code ${code}) without an answer`));
    });
  });
}
