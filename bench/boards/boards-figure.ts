/**
 * Every board at a million votes: the refresh's fits (overall and seven categories, raw and
 * controlled for style, on two threads) with the intervals in closed form, against the same fits
 * with the bootstrap the refresh used before (100 resamples), each in a process of its own.
 */
import { figure, type FigureRow } from '../report/model';
import type { Progress } from '../report/progress';
import { startChild } from '../stack/child';
import type { BenchStack } from '../stack/stack';
import type { BoardsReport, BoardsRequest } from './boards-child';

export interface BoardsResult {
  closedForm: BoardsReport;
  bootstrap: BoardsReport;
  figures: FigureRow[];
}

const isReport = (msg: unknown): msg is BoardsReport => typeof msg === 'object' && msg !== null && 'fitMs' in msg;

async function fitEveryBoard(stack: BenchStack, request: BoardsRequest, timeoutSeconds: number): Promise<BoardsReport> {
  const child = startChild({
    name: 'every board',
    script: 'bench/boards/boards-child.ts',
    env: { ...process.env },
    logFile: stack.logFile(`boards-${request.bootstrap ? 'bootstrap' : 'closed-form'}`),
    ipc: true,
  });
  try {
    child.process.send(request);
    return await child.message(isReport, timeoutSeconds * 1000);
  } finally {
    await child.stop(1_000);
  }
}

export async function runBoardsFigure(ctx: {
  stack: BenchStack;
  progress: Progress;
  profile: { boards: { votes: number; agents: number; timeoutSeconds: number } };
}): Promise<BoardsResult> {
  const { votes, agents, timeoutSeconds } = ctx.profile.boards;
  ctx.progress.log(`boards: every board over ${votes} votes and ${agents} agents, intervals in closed form`);
  const closedForm = await fitEveryBoard(ctx.stack, { votes, agents }, timeoutSeconds);
  ctx.progress.log(`boards: ${(closedForm.fitMs / 1000).toFixed(1)} s; now with 100 bootstrap resamples`);
  const bootstrap = await fitEveryBoard(ctx.stack, { votes, agents, bootstrap: 100 }, timeoutSeconds * 10);
  ctx.progress.log(`boards: bootstrap ${(bootstrap.fitMs / 1000).toFixed(1)} s`);
  const figures = [
    figure({
      group: 'boards',
      name: `every board (${closedForm.boards} fits), ${votes} votes, ${agents} agents: wall time`,
      unit: 's',
      value: closedForm.fitMs / 1000,
      baselineName: 'the same fits with 100 bootstrap resamples',
      baseline: bootstrap.fitMs / 1000,
      better: 'lower',
      target: '<= 60 s',
      met: closedForm.fitMs <= 60_000,
    }),
    figure({
      group: 'boards',
      name: 'every board: peak RSS',
      unit: 'MB',
      value: closedForm.maxRssMb,
      baselineName: 'the same fits with 100 bootstrap resamples',
      baseline: bootstrap.maxRssMb,
      better: 'lower',
      target: '<= 1024 MB',
      met: closedForm.maxRssMb <= 1024,
    }),
  ];
  return { closedForm, bootstrap, figures };
}
