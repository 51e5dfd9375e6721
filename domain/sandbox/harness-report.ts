/**
 * A coding session's score, read from the report of the arena's test harness: one JSON line on a
 * descriptor of its own, carrying the run's nonce, with an outcome per hidden test. Nothing the code
 * under test prints is read.
 */
import { z } from 'zod';

/** What scoring found: tests passed of the task's total, and why a run scored 0 when it did. */
export interface HarnessScore {
  passed: number;
  total: number;
  /** The run was tampered with: the reason, shown in the feed. Scores 0. */
  tampered?: string;
  /** The run gave no score the arena believes (no report, a report that does not fit the task). Scores 0. */
  unread?: string;
}

const reportSchema = z.object({
  nonce: z.string(),
  harness: z.string(),
  tests: z.array(z.object({ id: z.string(), outcome: z.string() })),
  errors: z.array(z.string()).default([]),
  tampered: z.string().nullable(),
});

export type HarnessReport = z.infer<typeof reportSchema>;

/** The most of a harness's reason that is kept: it may quote names the code under test chose. */
const MAX_REASON_CHARS = 300;

const shortened = (reason: string) =>
  reason.length <= MAX_REASON_CHARS ? reason : `${reason.slice(0, MAX_REASON_CHARS - 1)}…`;

export const NO_REPORT =
  'the harness did not report: the hidden tests could not be loaded, or the run ended before they finished';

/** The reports in `text` that carry `nonce`: anything else on the descriptor is not the harness's. */
export function harnessReportsOf(text: string, nonce: string): HarnessReport[] {
  const reports: HarnessReport[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes(nonce)) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = reportSchema.safeParse(json);
    if (parsed.success && parsed.data.nonce === nonce) reports.push(parsed.data);
  }
  return reports;
}

/**
 * The score of one harness run against a task that declares `testsTotal` hidden tests. A test that
 * did not run (its file failed to load) counts as failed. A run reported twice, or with more tests
 * than the task has, is not believed.
 */
export function scoreHarnessRun(reportText: string, nonce: string, testsTotal: number): HarnessScore {
  const zero = { passed: 0, total: testsTotal };
  const reports = harnessReportsOf(reportText, nonce);
  if (reports.length === 0) return { ...zero, unread: NO_REPORT };
  if (reports.length > 1) return { ...zero, tampered: 'the harness was made to report more than once' };
  const [report] = reports as [HarnessReport];
  if (report.tampered) return { ...zero, tampered: shortened(report.tampered) };
  if (report.tests.length > testsTotal) {
    return { ...zero, unread: `the run reported ${report.tests.length} tests; the task has ${testsTotal}` };
  }
  const ids = new Set(report.tests.map((test) => test.id));
  if (ids.size !== report.tests.length) return { ...zero, tampered: 'a test was reported twice' };
  return { passed: report.tests.filter((test) => test.outcome === 'passed').length, total: testsTotal };
}
