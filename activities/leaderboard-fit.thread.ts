/**
 * A worker thread of fitBoardsInThreads: reads the refresh's votes once, from memory it shares with
 * the parent, then fits one board at a time as the parent asks, until the parent ends it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { VERDICTS } from '../domain/arena';
import { fitBoards, type BoardFit, type BoardOptions, type BoardVote } from '../domain/ratings/boards';

/** What the parent shares: each vote's agents, its outcome as an index into VERDICTS, its category as an index into `categories`, and its style features (`featureCount` per vote). */
export interface FitRequest {
  kind: 'leaderboard-fit';
  a: Int32Array;
  b: Int32Array;
  outcome: Uint8Array;
  category: Uint16Array;
  categories: string[];
  features: Float64Array;
  featureCount: number;
  options: Omit<BoardOptions, 'only'>;
}

const request = workerData as FitRequest | undefined;
if (parentPort && request?.kind === 'leaderboard-fit') {
  const port = parentPort;
  const { a, b, outcome, category, categories, features, featureCount, options } = request;
  const votes: BoardVote[] = Array.from(a, (agent, i) => ({
    a: agent,
    b: b[i]!,
    outcome: VERDICTS[outcome[i]!]!,
    category: categories[category[i]!]!,
    features: features.subarray(i * featureCount, (i + 1) * featureCount),
  }));
  port.on('message', (fit: BoardFit) => {
    const [board] = fitBoards(votes, { ...options, only: fit });
    port.postMessage(board);
  });
}
