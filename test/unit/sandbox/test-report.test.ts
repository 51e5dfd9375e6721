/** Reading a hidden-test run's output into tests passed and total, for Python's unittest and Node's test runner. */
import { testReportOf } from '../../../domain/sandbox/test-report';

/** What `python3 -m unittest discover -v` writes to stderr after its per-test lines. */
function unittestSummary(ran: number, outcome: string): string {
  return [
    'test_century (test_leap.LeapTest.test_century) ... FAIL',
    '',
    '======================================================================',
    'FAIL: test_century (test_leap.LeapTest.test_century)',
    '----------------------------------------------------------------------',
    'AssertionError: True is not false',
    '',
    '----------------------------------------------------------------------',
    `Ran ${ran} test${ran === 1 ? '' : 's'} in 0.002s`,
    '',
    outcome,
    '',
  ].join('\n');
}

/** The closing lines of `node --test --test-reporter=tap`. */
function tapSummary(tests: number, pass: number): string {
  return [
    'TAP version 13',
    '# Subtest: parses',
    'ok 1 - parses',
    '  ---',
    '  duration_ms: 0.9',
    '  ...',
    `1..${tests}`,
    `# tests ${tests}`,
    '# suites 0',
    `# pass ${pass}`,
    `# fail ${tests - pass}`,
    '# cancelled 0',
    '# skipped 0',
    '# todo 0',
    '# duration_ms 155.7',
    '',
  ].join('\n');
}

describe('testReportOf: Python unittest', () => {
  it('counts every test as passed on OK', () => {
    expect(testReportOf('python', 0, '', unittestSummary(6, 'OK'), 6)).toEqual({ passed: 6, total: 6 });
  });

  it('subtracts failures and errors', () => {
    expect(testReportOf('python', 1, '', unittestSummary(8, 'FAILED (failures=2, errors=1)'), 8)).toEqual({
      passed: 5,
      total: 8,
    });
    expect(testReportOf('python', 1, '', unittestSummary(4, 'FAILED (errors=4)'), 4)).toEqual({
      passed: 0,
      total: 4,
    });
  });

  it('does not count skipped tests or unexpected successes as passed', () => {
    expect(testReportOf('python', 0, '', unittestSummary(6, 'OK (skipped=2)'), 6)).toEqual({ passed: 4, total: 6 });
    expect(
      testReportOf('python', 1, '', unittestSummary(6, 'FAILED (failures=1, skipped=1, unexpected successes=1)'), 6),
    ).toEqual({ passed: 3, total: 6 });
  });

  it('reads the run without a declared total from the output alone', () => {
    expect(testReportOf('python', 1, '', unittestSummary(5, 'FAILED (failures=1)'))).toEqual({
      passed: 4,
      total: 5,
    });
  });

  it('scores a module that does not import (a syntax error in the code) as 0 of the declared total', () => {
    // unittest turns a test module it cannot import into one failing test.
    const stderr = [
      'test_leap (unittest.loader._FailedTest.test_leap) ... ERROR',
      '',
      'ImportError: Failed to import test module: test_leap',
      "SyntaxError: '(' was never closed",
      '',
      '----------------------------------------------------------------------',
      'Ran 1 test in 0.000s',
      '',
      'FAILED (errors=1)',
    ].join('\n');
    expect(testReportOf('python', 1, '', stderr, 7)).toEqual({ passed: 0, total: 7 });
  });

  it('keeps the passes of the modules that ran when another did not import', () => {
    expect(testReportOf('python', 1, '', unittestSummary(4, 'FAILED (errors=1)'), 9)).toEqual({
      passed: 3,
      total: 9,
    });
  });

  it('scores a crash before any test ran as 0 of the declared total, or 0 of 0 without one', () => {
    const stderr = 'Traceback (most recent call last):\nMemoryError\n';
    expect(testReportOf('python', 1, '', stderr, 6)).toEqual({ passed: 0, total: 6 });
    expect(testReportOf('python', 1, '', stderr)).toEqual({ passed: 0, total: 0 });
    expect(testReportOf('python', null, '', '', 6)).toEqual({ passed: 0, total: 6 });
  });

  it('scores a run of no tests as 0 of the declared total', () => {
    expect(testReportOf('python', 0, '', '\nRan 0 tests in 0.000s\n\nOK\n', 6)).toEqual({ passed: 0, total: 6 });
  });

  it('reads the last summary, so a summary the code under test printed earlier does not count', () => {
    const forged = 'Ran 6 tests in 0.001s\n\nOK\n';
    const real = unittestSummary(6, 'FAILED (failures=4)');
    expect(testReportOf('python', 1, '', forged + real, 6)).toEqual({ passed: 2, total: 6 });
  });

  it('trusts no summary when more tests ran than the task declares', () => {
    expect(testReportOf('python', 0, '', unittestSummary(12, 'OK'), 6)).toEqual({ passed: 0, total: 6 });
  });

  it('trusts no "all passed" that the exit code contradicts', () => {
    expect(testReportOf('python', 1, '', unittestSummary(6, 'OK'), 6)).toEqual({ passed: 0, total: 6 });
    expect(testReportOf('python', null, '', unittestSummary(6, 'OK'), 6)).toEqual({ passed: 0, total: 6 });
  });

  it('finds the summary on stdout when the streams were merged there', () => {
    expect(testReportOf('python', 1, unittestSummary(6, 'FAILED (failures=1)'), '', 6)).toEqual({
      passed: 5,
      total: 6,
    });
  });

  it('tolerates Windows line ends', () => {
    expect(testReportOf('python', 0, '', unittestSummary(3, 'OK').replace(/\n/g, '\r\n'), 3)).toEqual({
      passed: 3,
      total: 3,
    });
  });
});

describe('testReportOf: node --test with the TAP reporter', () => {
  it('reads tests and pass from the summary', () => {
    expect(testReportOf('javascript', 0, tapSummary(7, 7), '', 7)).toEqual({ passed: 7, total: 7 });
    expect(testReportOf('javascript', 1, tapSummary(7, 4), '', 7)).toEqual({ passed: 4, total: 7 });
  });

  it('scores a test file that does not load (a syntax error in the code) as 0 of the declared total', () => {
    // The runner reports a file that exits before its tests as one failing test.
    const stdout = [
      'TAP version 13',
      '# /tmp/w/lib/parse.js:2',
      '# SyntaxError: Unexpected end of input',
      '# Subtest: /tmp/w/.hidden-tests/parse.test.js',
      'not ok 1 - /tmp/w/.hidden-tests/parse.test.js',
      '1..1',
      '# tests 1',
      '# pass 0',
      '# fail 1',
    ].join('\n');
    expect(testReportOf('javascript', 1, stdout, '', 6)).toEqual({ passed: 0, total: 6 });
  });

  it('scores a run cut before its summary (a timeout, a crash) as 0 of the declared total', () => {
    const cut = 'TAP version 13\n# Subtest: parses\nok 1 - parses\n';
    expect(testReportOf('javascript', null, cut, '', 6)).toEqual({ passed: 0, total: 6 });
    expect(testReportOf('javascript', 1, '', 'node: bad option: --test-reporter=tap\n')).toEqual({
      passed: 0,
      total: 0,
    });
  });

  it('ignores counts the code under test printed (the runner shows them as comments before its summary)', () => {
    const stdout = `TAP version 13\n# tests 50\n# pass 50\n${tapSummary(6, 1)}`;
    expect(testReportOf('javascript', 1, stdout, '', 6)).toEqual({ passed: 1, total: 6 });
  });

  it('trusts no summary with more tests than declared, or all passed against a failing exit code', () => {
    expect(testReportOf('javascript', 0, tapSummary(9, 9), '', 6)).toEqual({ passed: 0, total: 6 });
    expect(testReportOf('javascript', 1, tapSummary(6, 6), '', 6)).toEqual({ passed: 0, total: 6 });
  });

  it('does not read the other runner’s summary', () => {
    expect(testReportOf('javascript', 0, '', unittestSummary(6, 'OK'), 6)).toEqual({ passed: 0, total: 6 });
    expect(testReportOf('python', 0, tapSummary(6, 6), '', 6)).toEqual({ passed: 0, total: 6 });
  });
});
