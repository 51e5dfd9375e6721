/**
 * The shipped coding tasks prove themselves: each task's hidden tests fail on its starting files and all
 * pass with its reference solution, run by the arena's harness and counted the way a session's score is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_SANDBOX_TASKS_DIR, loadTaskCatalogue } from '../../../infra/sandbox/task-catalogue';
import { runTaskTests } from '../../support/sandbox-tasks';

const catalogue = loadTaskCatalogue();
const RUN_TIMEOUT_MS = 120_000;

it('ships at least 12 tasks, in Python and in JavaScript, every task folder among them', () => {
  expect(catalogue.length).toBeGreaterThanOrEqual(12);
  const languages = new Set(catalogue.map((task) => task.manifest.language));
  expect([...languages].sort()).toEqual(['javascript', 'python']);
  const folders = fs
    .readdirSync(DEFAULT_SANDBOX_TASKS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((language) =>
      fs
        .readdirSync(path.join(DEFAULT_SANDBOX_TASKS_DIR, language.name), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((task) => `${language.name}/${task.name}`),
    );
  expect(catalogue.map((task) => task.id)).toEqual(folders.sort());
});

it('keeps python/leap-year as the example agent expects it: the one-line rule in calendar_utils.py', () => {
  const task = catalogue.find((t) => t.id === 'python/leap-year');
  const source = fs.readFileSync(path.join(task?.paths.files ?? '', 'calendar_utils.py'), 'utf8');
  expect(source).toContain('def is_leap(year):\n    return year % 4 == 0\n');
});

describe.each(catalogue.map((task) => [task.id, task] as const))('%s', (id, task) => {
  it('has its id as its folder and a statement', () => {
    expect(path.relative(DEFAULT_SANDBOX_TASKS_DIR, task.paths.root).split(path.sep).join('/')).toBe(id);
    expect(task.statement.trim().length).toBeGreaterThan(0);
  });

  it(
    'fails its hidden tests on the starting files',
    async () => {
      const run = await runTaskTests(task, { solution: false });
      expect(run.score).toEqual({ passed: expect.any(Number), total: task.manifest.tests_total });
      expect(run.score.passed).toBeLessThan(run.score.total);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'passes every hidden test with the reference solution, as many as it declares',
    async () => {
      const run = await runTaskTests(task, { solution: true });
      // Every test passed, none tampered with, none unread: exactly as many as the task declares.
      expect({ score: run.score, stderr: run.score.passed === task.manifest.tests_total ? '' : run.stderr }).toEqual({
        score: { passed: task.manifest.tests_total, total: task.manifest.tests_total },
        stderr: '',
      });
    },
    RUN_TIMEOUT_MS,
  );
});
