/**
 * A scoring that fails for the arena's own reason is run again; what the agent's code did is never
 * a reason to, and a workspace that is gone is not brought back by trying.
 */
import type { CleanRoomScore } from '../../../infra/sandbox/clean-room';
import { IsolationUnavailableError } from '../../../infra/sandbox/isolation';
import { triedAgain } from '../../../infra/sandbox/runtime';
import { WorkspaceLostError } from '../../../infra/sandbox/workspaces';

const scored: CleanRoomScore = { passed: 3, total: 8, leftOut: [] };
const silent: CleanRoomScore = { passed: 0, total: 8, unread: 'the harness did not report', leftOut: [] };

/** A scoring answering (or throwing) each of `answers` in turn, counting its runs. */
function scoring(...answers: Array<CleanRoomScore | Error>) {
  let runs = 0;
  const run = async () => {
    const answer = answers[Math.min(runs++, answers.length - 1)]!;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { run, runs: () => runs };
}

it('runs a scoring again when its sandbox could not start, or its judge did not report', async () => {
  const flaky = scoring(new Error('the sandbox could not be started (EAGAIN)'), silent, scored);
  await expect(triedAgain(flaky.run, 3, 0)).resolves.toEqual(scored);
  expect(flaky.runs()).toBe(3);
});

it("keeps the agent's own score at once, a failing one included", async () => {
  const failing = scoring({ passed: 0, total: 8, tampered: 'the run reported twice', leftOut: [] });
  await expect(triedAgain(failing.run, 3, 0)).resolves.toMatchObject({ passed: 0, tampered: 'the run reported twice' });
  expect(failing.runs()).toBe(1);
});

it('stops at its last try: a judge silent three times is scored as silent, an error thrown three times is thrown', async () => {
  const quiet = scoring(silent);
  await expect(triedAgain(quiet.run, 3, 0)).resolves.toEqual(silent);
  expect(quiet.runs()).toBe(3);
  const broken = scoring(new Error('the sandbox could not be started (EAGAIN)'));
  await expect(triedAgain(broken.run, 3, 0)).rejects.toThrow('EAGAIN');
  expect(broken.runs()).toBe(3);
});

it('does not try again for a workspace that is gone, or a machine that cannot isolate', async () => {
  for (const error of [
    new WorkspaceLostError({ dir: '/tmp/arena-sandbox/7' }),
    new IsolationUnavailableError('no bwrap'),
  ]) {
    const lost = scoring(error);
    await expect(triedAgain(lost.run, 3, 0)).rejects.toBe(error);
    expect(lost.runs()).toBe(1);
  }
});
