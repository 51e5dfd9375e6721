/**
 * The judge's test reporter: Node hands it the run's events as the `--test-reporter`, and it writes
 * one JSON line, with the run's nonce, to the report descriptor once the run has ended (or, when no
 * test file loaded, once the judge is done). The format is report.mjs's, read by harness-report.ts.
 */
import fs from 'node:fs';

/** What the judge tells the report: the nonce, the descriptor, files that did not load, tampering seen. */
export const state = {
  nonce: '',
  reportFd: -1,
  errors: [],
  tampered: null,
  detail: null,
  /** Values of the code's the judge could not use as plain values, for the owner (they name its classes). */
  uncompared: [],
  reporting: false,
  reported: false,
  finish: () => undefined,
};

export function writeReport(tests) {
  if (state.reported) return;
  state.reported = true;
  const { nonce, errors, tampered, detail, uncompared } = state;
  const line = JSON.stringify({ nonce, harness: 'node-judge', tests, errors, tampered, detail, uncompared }) + '\n';
  const bytes = Buffer.from(line, 'utf8');
  for (let written = 0; written < bytes.length;) written += fs.writeSync(state.reportFd, bytes, written);
  state.finish();
}

export default async function* judgeReporter(source) {
  state.reporting = true;
  const tests = [];
  /** The names of the suites and tests the current one sits in, by nesting level. */
  const within = [];
  for await (const event of source) {
    const data = event.data ?? {};
    if (event.type === 'test:start') {
      within.length = data.nesting;
      within.push(data.name);
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    // A describe() block is a suite, not a test; its tests come as events of their own.
    if (data.details?.type === 'suite') continue;
    const outcome =
      event.type === 'test:fail' ? 'failed' : data.skip !== undefined || data.todo !== undefined ? 'skipped' : 'passed';
    const id = [data.file ?? '', ...within.slice(0, data.nesting), data.name].join(' > ');
    tests.push({ id, outcome });
  }
  writeReport(tests);
}
