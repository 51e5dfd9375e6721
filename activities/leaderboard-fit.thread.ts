/**
 * A worker thread of fitBoardsInThreads: fits one board at a time, as the parent asks, from the
 * vote columns it shares with the parent, until the parent ends it. Each fit reads its board's
 * votes as objects only while it runs.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { OVERALL, fitBoards, type BoardFit, type BoardOptions } from '../domain/ratings/boards';
import { boardVotesOf, type VoteColumns } from './vote-columns';

export interface FitRequest {
  kind: 'leaderboard-fit';
  /** Sets of votes; a fit names its set by index. */
  sets: VoteColumns[];
  options: Omit<BoardOptions, 'only'>;
}

const request = workerData as FitRequest | undefined;
if (parentPort && request?.kind === 'leaderboard-fit') {
  const port = parentPort;
  const { sets, options } = request;
  port.on('message', (fit: BoardFit & { set: number }) => {
    const votes = boardVotesOf(sets[fit.set]!, fit.board === OVERALL ? undefined : fit.board);
    const [board] = fitBoards(votes, { ...options, only: fit });
    port.postMessage(board);
  });
}
