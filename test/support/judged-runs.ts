/**
 * A judge and its candidate run on a few lines of code and a few hidden tests, as scoring wires them
 * (minus the sandboxes): each test's outcome by name, with the judge's report as it wrote it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxTask } from '../../infra/sandbox/task-catalogue';
import { runHarness } from './sandbox-tasks';

export interface JudgedRun {
  outcomes: Record<string, string>;
  errors: string[];
  tampered: string | null;
  detail: string | null;
  /** What the judge could not compare, for the owner (names the code chose). */
  uncompared: string[];
  score: Awaited<ReturnType<typeof runHarness>>['score'];
}

/** Runs the hidden tests in `tests` (file name → text) on the code in `code` (file name → text). */
async function judgedFiles(
  language: 'python' | 'javascript',
  code: Record<string, string>,
  tests: Record<string, string>,
  options: { callSeconds?: number },
): Promise<JudgedRun> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-judged-'));
  try {
    for (const [file, text] of Object.entries(code)) {
      fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      fs.writeFileSync(path.join(folder, file), text);
    }
    fs.mkdirSync(path.join(folder, '.hidden-tests'));
    for (const [file, text] of Object.entries(tests)) fs.writeFileSync(path.join(folder, '.hidden-tests', file), text);
    const task = { manifest: { language, tests_total: 50, limits: { test_timeout_seconds: 60 } } };
    const run = await runHarness(task as unknown as SandboxTask, folder, options);
    const report = JSON.parse(run.report.trim().split('\n').at(-1) ?? '{}') as {
      tests: Array<{ id: string; outcome: string }>;
      errors?: string[];
      tampered: string | null;
      detail: string | null;
      uncompared?: string[];
    };
    const separator = language === 'python' ? '.' : ' > ';
    const outcomes = Object.fromEntries(report.tests.map((t) => [t.id.split(separator).at(-1)!, t.outcome]));
    return {
      outcomes,
      errors: report.errors ?? [],
      tampered: report.tampered,
      detail: report.detail,
      uncompared: report.uncompared ?? [],
      score: run.score,
    };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** `tests` (a unittest module) against `code` (the module `subject`). */
export function judgedPython(code: string, tests: string, options: { callSeconds?: number } = {}): Promise<JudgedRun> {
  return judgedFiles('python', { 'subject.py': code }, { 'test_boundary.py': tests }, options);
}

/** `tests` (node:test files under .hidden-tests/) against `code` (files of the code under test). */
export function judgedNode(
  code: Record<string, string>,
  tests: Record<string, string>,
  options: { callSeconds?: number } = {},
): Promise<JudgedRun> {
  return judgedFiles('javascript', code, tests, options);
}

/** A hidden Python test method named `test_<name>` whose body is `body`, indented into a TestCase. */
export const pythonTest = (name: string, body: string) =>
  `    def test_${name}(self):\n${body
    .split('\n')
    .map((line) => `        ${line}`)
    .join('\n')}\n`;
