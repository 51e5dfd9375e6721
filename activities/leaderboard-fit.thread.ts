/**
 * A worker thread of fitBoardsInThreads: fits one board at a time, as the parent asks, from the
 * vote columns it shares with the parent, until the parent ends it. Each fit reads its board's
 * votes as objects only while it runs.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { OVERALL, fitBoards, type BoardFit, type BoardOptions, type FittedBoard } from '../domain/ratings/boards';
import { boardVotesOf, type VoteColumns } from './vote-columns';

export interface FitRequest {
  kind: 'leaderboard-fit';
  /** Sets of votes; a fit names its set by index. */
  sets: VoteColumns[];
  options: Omit<BoardOptions, 'only'>;
}

/** One fit of one set, reading the board's votes from the shared columns only while it runs. */
export function fitOne(
  sets: readonly VoteColumns[],
  fit: BoardFit & { set: number },
  options: FitRequest['options'],
): FittedBoard | undefined {
  const votes = boardVotesOf(sets[fit.set]!, fit.board === OVERALL ? undefined : fit.board);
  return fitBoards(votes, { ...options, only: fit })[0];
}

const request = workerData as FitRequest | undefined;
if (parentPort && request?.kind === 'leaderboard-fit') {
  const port = parentPort;
  const { sets, options } = request;
  port.on('message', (fit: BoardFit & { set: number }) => port.postMessage(fitOne(sets, fit, options)));
}
