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
  /** The run was tampered with: the arena's own sentence for it, shown in the feed. Scores 0. */
  tampered?: string;
  /** What the harness saw, for operators only: it may quote names or text the code under test chose. */
  tamperedDetail?: string;
  /** The run gave no score the arena believes (no report, a report that does not fit the task). Scores 0. */
  unread?: string;
  /**
   * Values of the code's the judge could not use as plain values (`returned a \`Days\`, which the
   * judge cannot compare as a number`), for the owner only: they name classes the code chose.
   */
  uncompared?: string[];
}

const reportSchema = z.object({
  nonce: z.string(),
  harness: z.string(),
  tests: z.array(z.object({ id: z.string(), outcome: z.string() })),
  errors: z.array(z.string()).default([]),
  tampered: z.string().nullable(),
  detail: z.string().nullable().optional(),
  uncompared: z.array(z.string()).default([]),
});

export type HarnessReport = z.infer<typeof reportSchema>;

/** The most of a harness's detail that is kept: it may quote names the code under test chose. */
const MAX_DETAIL_CHARS = 1000;
/** The most notes of values the judge could not compare that are kept, and of each one. */
const MAX_UNCOMPARED = 5;
const MAX_UNCOMPARED_CHARS = 200;

const shortened = (reason: string) =>
  reason.length <= MAX_DETAIL_CHARS ? reason : `${reason.slice(0, MAX_DETAIL_CHARS - 1)}…`;

/**
 * The sentences a tampered run is shown with: the arena's own, never words the code under test
 * chose (a name it gave a class, a message, its output), which could carry the hidden tests out.
 */
export const TAMPERED = {
  /** The judge's: the candidate broke the wire's protocol. */
  protocol: 'the code under test sent the judge a message the protocol does not allow',
  /** JavaScript's harness from before its judge, which ran in the code's own process, saw its machinery changed (earlier sessions). */
  machinery: 'the code under test changed the test machinery while the hidden tests ran',
  reportedTwice: 'the harness was made to report more than once',
  testTwice: 'a test was reported twice',
} as const;

/** A harness's tampering as the feed shows it (one of TAMPERED), with what it said kept for operators. */
function tamperedOf(report: HarnessReport): Pick<HarnessScore, 'tampered' | 'tamperedDetail'> {
  const said = report.tampered ?? '';
  const known = Object.values(TAMPERED) as string[];
  if (known.includes(said))
    return { tampered: said, ...(report.detail ? { tamperedDetail: shortened(report.detail) } : {}) };
  return { tampered: TAMPERED.machinery, tamperedDetail: shortened(said) };
}

/** The feed's sentence for values the judge could not compare; the owner's view of the error names them. */
export const UNCOMPARED = 'the judge could not compare some values of the code as plain values';

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
  if (reports.length > 1) return { ...zero, tampered: TAMPERED.reportedTwice };
  const [report] = reports as [HarnessReport];
  if (report.tampered) return { ...zero, ...tamperedOf(report) };
  if (report.tests.length > testsTotal) {
    return { ...zero, unread: `the run reported ${report.tests.length} tests; the task has ${testsTotal}` };
  }
  const ids = new Set(report.tests.map((test) => test.id));
  if (ids.size !== report.tests.length) return { ...zero, tampered: TAMPERED.testTwice };
  const uncompared = report.uncompared
    .slice(0, MAX_UNCOMPARED)
    .map((note) => (note.length <= MAX_UNCOMPARED_CHARS ? note : `${note.slice(0, MAX_UNCOMPARED_CHARS - 1)}…`));
  return {
    passed: report.tests.filter((test) => test.outcome === 'passed').length,
    total: testsTotal,
    ...(uncompared.length > 0 ? { uncompared } : {}),
  };
}
