/** Reading the harness's report into a score: only a report with the run's nonce counts, once, and it must fit the task. */
import { TAMPERED, NO_REPORT, harnessReportsOf, scoreHarnessRun } from '../../../domain/sandbox/harness-report';

const NONCE = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';

function report(outcomes: string[], extra: Record<string, unknown> = {}): string {
  return `${JSON.stringify({
    nonce: NONCE,
    harness: 'python-unittest',
    tests: outcomes.map((outcome, i) => ({ id: `test_x.T.test_${i}`, outcome })),
    errors: [],
    tampered: null,
    ...extra,
  })}\n`;
}

describe('scoreHarnessRun', () => {
  it('counts the tests reported passed, out of the total the task declares', () => {
    expect(scoreHarnessRun(report(['passed', 'failed', 'passed', 'error', 'skipped']), NONCE, 5)).toEqual({
      passed: 2,
      total: 5,
    });
  });

  it('counts tests that never ran (a file that did not load) as failed', () => {
    expect(scoreHarnessRun(report(['passed', 'passed']), NONCE, 8)).toEqual({ passed: 2, total: 8 });
  });

  it('scores 0 when there is no report: an exit at import, or a crash before the end', () => {
    expect(scoreHarnessRun('', NONCE, 8)).toEqual({ passed: 0, total: 8, unread: NO_REPORT });
  });

  it('ignores a report without the run nonce, however well it is made', () => {
    const forged = report(['passed', 'passed']).replace(NONCE, 'f'.repeat(32));
    expect(scoreHarnessRun(forged, NONCE, 2)).toEqual({ passed: 0, total: 2, unread: NO_REPORT });
    expect(harnessReportsOf(`${forged}not json ${NONCE}\n{"nonce": "${NONCE}"}\n`, NONCE)).toEqual([]);
  });

  it('does not believe a run that reported twice, or the same test twice', () => {
    const twice = report(['passed']) + report(['passed']);
    expect(scoreHarnessRun(twice, NONCE, 1)).toMatchObject({
      passed: 0,
      tampered: expect.stringMatching(/more than once/),
    });
    const sameTest = report(['passed']).replace(
      '"tests":[{"id":"test_x.T.test_0","outcome":"passed"}]',
      '"tests":[{"id":"a","outcome":"passed"},{"id":"a","outcome":"passed"}]',
    );
    expect(scoreHarnessRun(sameTest, NONCE, 2)).toMatchObject({ passed: 0, tampered: 'a test was reported twice' });
  });

  it('does not believe more tests than the task has', () => {
    expect(scoreHarnessRun(report(['passed', 'passed', 'passed']), NONCE, 2)).toEqual({
      passed: 0,
      total: 2,
      unread: 'the run reported 3 tests; the task has 2',
    });
  });

  it("scores a tampered run as 0 in the arena's own words, what the harness said kept for operators", () => {
    const tampered = report(['passed', 'passed'], { tampered: 'Module.prototype.require was replaced' });
    expect(scoreHarnessRun(tampered, NONCE, 2)).toEqual({
      passed: 0,
      total: 2,
      tampered: TAMPERED.machinery,
      tamperedDetail: 'Module.prototype.require was replaced',
    });
    // The judge's own sentence stays, with its detail beside it.
    const judged = report(['passed'], { tampered: TAMPERED.protocol, detail: 'a frame that is not JSON' });
    expect(scoreHarnessRun(judged, NONCE, 1)).toEqual({
      passed: 0,
      total: 1,
      tampered: TAMPERED.protocol,
      tamperedDetail: 'a frame that is not JSON',
    });
  });

  it('never shows a name the code under test chose, and keeps its detail to a thousand characters', () => {
    const tampered = report(['passed'], { tampered: `builtins.leak ${'y'.repeat(5000)} was added` });
    const score = scoreHarnessRun(tampered, NONCE, 1);
    expect(score.tampered).toBe(TAMPERED.machinery);
    expect(score.tamperedDetail?.length).toBeLessThanOrEqual(1000);
  });
});
