/**
 * The order jest runs the files in (test/support/sequencer.js) and the recorded times it takes where
 * it has none of its own (test/support/record-times.js): a wrong order costs a run minutes, not a
 * result, so nothing else would notice.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const Sequencer = require('../support/sequencer.js') as new (options: object) => {
  sort(tests: FakeTest[]): FakeTest[];
};

const REPO = path.resolve(__dirname, '..', '..');
const RECORDED = JSON.parse(fs.readFileSync(path.join(REPO, 'test/support/test-times.json'), 'utf8')) as Record<
  string,
  number
>;

interface FakeTest {
  path: string;
  duration?: number;
  context: { config: { cache: boolean } };
}

/** Jest's own times are off (no cache), as in a fresh clone. */
const context = { config: { cache: false } };
const order = (files: string[]) =>
  new Sequencer({}).sort(files.map((file) => ({ path: file, context }))).map((t) => path.relative(REPO, t.path));

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-order-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('runs a fresh clone’s files longest first by their recorded times', () => {
  const files = ['test/web/pages.test.ts', 'test/unit/parse-form.test.ts', 'test/sandbox/coding-sessions.test.ts'];
  for (const file of files) expect(RECORDED[file]).toEqual(expect.any(Number));
  const byTime = [...files].sort((a, b) => RECORDED[b]! - RECORDED[a]!);
  expect(order(files.map((f) => path.join(REPO, f)))).toEqual(byTime);
});

it('starts a file with no recorded time first, and weighs a file of parts by its parts', () => {
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
  write('plain.test.ts', 'x'.repeat(3_000));
  write('listing.test.ts', "runParts(__dirname, ['a', 'b']);\n");
  write('a.part.ts', 'x'.repeat(2_000));
  write('b.part.ts', 'x'.repeat(2_000));
  const unknown = ['plain.test.ts', 'listing.test.ts'].map((f) => path.join(dir, f));
  const known = path.join(REPO, 'test/hardening/fuzz.test.ts');
  expect(order([known, ...unknown])).toEqual([
    path.relative(REPO, unknown[1]!), // 4,000 bytes of parts
    path.relative(REPO, unknown[0]!), // 3,000 bytes
    path.relative(REPO, known),
  ]);
});

it('records each file’s seconds from a jest result file, by its path in the repository', () => {
  const results = path.join(dir, 'results.json');
  const out = path.join(dir, 'times.json');
  fs.writeFileSync(
    results,
    JSON.stringify({
      testResults: [
        // The fields of \`jest --json\` (its formatted results carry no perfStats).
        { name: path.join(REPO, 'test/b.test.ts'), startTime: 1_000, endTime: 13_460, status: 'passed' },
        { name: path.join(REPO, 'test/a.test.ts'), startTime: 0, endTime: 40, status: 'passed' },
      ],
    }),
  );
  execFileSync(process.execPath, [path.join(REPO, 'test/support/record-times.js'), results, out]);
  expect(fs.readFileSync(out, 'utf8')).toBe('{\n  "test/a.test.ts": 0,\n  "test/b.test.ts": 12.5\n}\n');
});
