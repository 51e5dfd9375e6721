/** The worker thread of fitLeaderboardInThread: one fit, answered to the parent, then the thread ends. */
import { parentPort, workerData } from 'node:worker_threads';
import { VERDICTS } from '../domain/arena';
import { fitLeaderboard, type BattleVote, type LeaderboardOptions } from '../domain/ratings/bradley-terry';

/** What the parent sends: each vote's agents and its outcome as an index into VERDICTS. */
export interface FitRequest {
  kind: 'leaderboard-fit';
  a: Int32Array;
  b: Int32Array;
  outcome: Uint8Array;
  options: LeaderboardOptions;
}

const request = workerData as FitRequest | undefined;
if (parentPort && request?.kind === 'leaderboard-fit') {
  const { a, b, outcome, options } = request;
  const votes: BattleVote[] = Array.from(a, (agent, i) => ({ a: agent, b: b[i]!, outcome: VERDICTS[outcome[i]!]! }));
  parentPort.postMessage(fitLeaderboard(votes, options));
}
