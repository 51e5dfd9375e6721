/**
 * runBenchmark (`benchmark-<run id>`): a benchmark run's sessions, every task once before any task
 * twice, each opened when the account's cap of live coding sessions lets it and run as its own
 * codingSession (which outlives this workflow if it must). The run is closed when its last session
 * has ended.
 */
import { condition, ParentClosePolicy, startChild } from '@temporalio/workflow';
import { arenaLocalActivities as local } from './arena-activities';
import { codingSession } from './coding-session';
import { codingSessionStartOptions, type BenchmarkInput, type BenchmarkOutcome } from './contracts';

/** How often a run whose account is full (with sessions that are not the run's) looks again. */
const FULL_RECHECK = '30 seconds';

export async function runBenchmark(input: BenchmarkInput): Promise<BenchmarkOutcome> {
  const plan = Array.from({ length: input.trials }, () => input.taskIds).flat();
  const outcome: BenchmarkOutcome = { opened: 0, skipped: 0 };
  let running = 0;
  /** Sessions of this run that have ended: each one frees a place under the account's cap. */
  let ended = 0;
  for (let next = 0; next < plan.length;) {
    const opening = await local.openBenchmarkSession({
      runId: input.runId,
      agentId: input.agentId,
      taskId: plan[next]!,
      deadlineSeconds: input.deadlineSeconds,
      maxSteps: input.maxSteps,
      sessionsPerAccount: input.sessionsPerAccount,
    });
    if (opening.kind === 'full') {
      const seen = ended;
      await condition(() => ended !== seen, FULL_RECHECK);
      continue;
    }
    next++;
    if (opening.kind === 'skipped') {
      outcome.skipped++;
      continue;
    }
    if (opening.kind === 'stopped') {
      outcome.stopped = opening.reason;
      break;
    }
    const child = await startChild(codingSession, {
      ...codingSessionStartOptions(opening.session),
      args: [opening.session],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
    outcome.opened++;
    running++;
    const done = () => {
      running--;
      ended++;
    };
    child.result().then(done, done);
  }
  await condition(() => running === 0);
  await local.finishBenchmarkRun({ runId: input.runId });
  return outcome;
}
