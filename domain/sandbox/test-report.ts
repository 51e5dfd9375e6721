/** How many hidden tests passed, read from what a task's test command printed (Python's unittest, Node's test runner). */
import type { SandboxLanguage } from './languages';

export interface TestReport {
  passed: number;
  total: number;
}

const UNITTEST_RAN = /^Ran (\d+) tests? in /;
const UNITTEST_OUTCOME = /^(?:OK|FAILED)(?: \(([^)]*)\))?$|^NO TESTS RAN$/;
/** Outcomes in unittest's closing parenthesis that are not a pass; "expected failures" are passes by design. */
const UNITTEST_NOT_PASSED = new Set(['failures', 'errors', 'skipped', 'unexpected successes']);

function linesOf(text: string): string[] {
  return text.split(/\r?\n/).map((line) => line.trimEnd());
}

function lastIndexOf(lines: string[], pattern: RegExp): number {
  for (let i = lines.length - 1; i >= 0; i--) if (pattern.test(lines[i] ?? '')) return i;
  return -1;
}

/** unittest closes with "Ran N tests in …", a blank line and "OK", "OK (skipped=1)" or "FAILED (failures=1, errors=2)". */
function unittestReport(text: string): TestReport | undefined {
  const lines = linesOf(text);
  const ranAt = lastIndexOf(lines, UNITTEST_RAN);
  if (ranAt < 0) return undefined;
  const total = Number(UNITTEST_RAN.exec(lines[ranAt] ?? '')?.[1]);
  const outcome = lines.slice(ranAt + 1).find((line) => line !== '');
  const match = outcome === undefined ? null : UNITTEST_OUTCOME.exec(outcome);
  if (!match) return undefined;
  let notPassed = 0;
  for (const part of (match[1] ?? '').split(',')) {
    const [name = '', count = ''] = part.split('=').map((word) => word.trim());
    if (UNITTEST_NOT_PASSED.has(name) && /^\d+$/.test(count)) notPassed += Number(count);
  }
  const passed = total - notPassed;
  return passed < 0 ? undefined : { passed, total };
}

/** The TAP reporter closes with "# tests N", "# suites N", "# pass N", "# fail N", … */
function tapReport(text: string): TestReport | undefined {
  const lines = linesOf(text);
  const testsAt = lastIndexOf(lines, /^# tests \d+$/);
  if (testsAt < 0) return undefined;
  const passLine = lines.slice(testsAt + 1).find((line) => /^# pass \d+$/.test(line));
  if (passLine === undefined) return undefined;
  const total = Number(lines[testsAt]?.slice('# tests '.length));
  const passed = Number(passLine.slice('# pass '.length));
  return passed > total ? undefined : { passed, total };
}

/**
 * Tests passed and total of one run of a task's test command. `exitCode` is null when the run was
 * killed. The code under test runs inside the test process and may print anything, so only the
 * runner's last summary counts, and a summary that does not fit the run is not believed: more tests
 * than the task declares, or every test passed with a failing exit code. A run that cannot be read
 * (a crash before any test ran, a cut output) scores 0 of the declared total (`testsTotal`), or 0 of
 * 0 when the total is not known.
 */
export function testReportOf(
  language: SandboxLanguage,
  exitCode: number | null,
  stdout: string,
  stderr: string,
  testsTotal?: number,
): TestReport {
  const read = language === 'python' ? unittestReport : tapReport;
  // unittest writes to stderr and the TAP reporter to stdout; a runner that merged the streams left both on one.
  const [own, other] = language === 'python' ? [stderr, stdout] : [stdout, stderr];
  const report = read(own) ?? read(other);
  const unread = { passed: 0, total: testsTotal ?? 0 };
  if (report === undefined || report.total === 0) return unread;
  if (testsTotal !== undefined && report.total > testsTotal) return unread;
  if (report.passed === report.total && exitCode !== 0) return unread;
  // Fewer tests than declared: a test module that did not load counted as one failure, its own tests never ran.
  return { passed: report.passed, total: testsTotal ?? report.total };
}
