/** `arena tasks import humaneval --file`: the sample's problems become tasks, checked in the real sandbox; broken ones are refused with their reason. */
import fs from 'node:fs';
import path from 'node:path';
import { HUMANEVAL_ORIGIN } from '../../domain/sandbox/humaneval';
import { useCliDatabase } from '../cli/cli-support';

const SAMPLE = path.join(__dirname, '..', 'fixtures', 'humaneval-sample.jsonl');
const cli = useCliDatabase('arena-humaneval-');
const { printed, errors, arena } = cli;

const rows = async () =>
  (
    await cli.pg.query(
      `select id, title, suite, origin, active, manifest, files, hidden_tests, statement from coding_tasks where suite = 'humaneval' order by id`,
    )
  ).rows as Array<{
    id: string;
    title: string;
    suite: string;
    origin: string;
    active: boolean;
    manifest: { tests_total: number };
    files: Array<{ path: string; content: string }>;
    hidden_tests: Array<{ path: string; content: string }>;
    statement: string;
  }>;
const table = () => printed.filter((line) => /^(python\/humaneval-\d+|line \d+)\t/.test(line));
const sample = fs
  .readFileSync(SAMPLE, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => {
    try {
      return JSON.parse(line) as { task_id: string; prompt: string };
    } catch {
      return undefined;
    }
  });

it('imports the problems that behave, refuses the others with why, and exits 1', async () => {
  expect(await arena('tasks', 'import', 'humaneval', '--file', SAMPLE)).toBe(1);
  expect(table()).toEqual([
    'python/humaneval-0\timported\t',
    'python/humaneval-2\timported\t',
    'python/humaneval-4\trefused\tits reference solution passes 0 of 1 hidden tests',
    'python/humaneval-5\trefused\tits starting files already pass every hidden test',
    'python/humaneval-32\timported\t',
    'python/humaneval-33\timported\t',
    'line 7\trefused\tnot JSON',
    'line 8\trefused\tnot a HumanEval problem: entry_point Invalid input: expected string, received undefined',
  ]);
  expect(printed.at(-1)).toMatch(
    /^8 problems: 4 imported, 0 already in the catalogue, 4 refused; 6 validated in the sandbox, [\d.]+ s in all$/,
  );
  expect(errors.join('\n')).toContain('4 problem(s) refused: see the table above');

  const imported = await rows();
  expect(imported.map((r) => r.id)).toEqual([
    'python/humaneval-0',
    'python/humaneval-2',
    'python/humaneval-32',
    'python/humaneval-33',
  ]);
  const zero = imported[0]!;
  expect(zero).toMatchObject({
    title: 'HumanEval/0: has_close_elements',
    suite: 'humaneval',
    origin: `${HUMANEVAL_ORIGIN}, problem HumanEval/0`,
    active: true,
    manifest: { tests_total: 1 },
  });
  expect(zero.files).toEqual([{ path: 'solution.py', content: sample[0]!.prompt }]);
  expect(zero.hidden_tests.map((f) => f.path)).toEqual(['.hidden-tests/test_humaneval.py']);
  expect(zero.statement).toContain('Implement `has_close_elements` in `solution.py`');
  expect(zero.statement).toContain('MIT licence');
  // The canonical solution is never stored.
  expect(JSON.stringify(imported)).not.toContain('distance = abs(elem - elem2)');
}, 180_000);

it('changes nothing on a second import, and a retired task stays retired', async () => {
  expect(await arena('tasks', 'retire', 'python/humaneval-2')).toBe(0);
  const before = await rows();
  printed.length = 0;
  expect(await arena('tasks', 'import', 'humaneval', '--file', SAMPLE)).toBe(1);
  expect(table().filter((line) => line.includes('\tunchanged\t'))).toEqual([
    'python/humaneval-0\tunchanged\talready in the catalogue',
    'python/humaneval-2\tunchanged\talready in the catalogue',
    'python/humaneval-32\tunchanged\talready in the catalogue',
    'python/humaneval-33\tunchanged\talready in the catalogue',
  ]);
  expect(printed.at(-1)).toMatch(/^8 problems: 0 imported, 4 already in the catalogue, 4 refused; 2 validated/);
  expect(await rows()).toEqual(before);
  expect(before.find((r) => r.id === 'python/humaneval-2')?.active).toBe(false);
}, 180_000);

it('exits 0 when every problem behaves, and refuses an unknown data set or an unreadable file', async () => {
  const good = path.join(cli.dir, 'good.jsonl');
  fs.writeFileSync(good, fs.readFileSync(SAMPLE, 'utf8').split('\n').slice(0, 2).join('\n'));
  expect(await arena('tasks', 'import', 'humaneval', '--file', good)).toBe(0);
  expect(printed.at(-1)).toMatch(/^2 problems: 0 imported, 2 already in the catalogue, 0 refused/);

  expect(await arena('tasks', 'import', 'mbpp')).toBe(1);
  expect(errors.join('\n')).toContain('unknown data set "mbpp": the one there is is humaneval');
  expect(await arena('tasks', 'import', 'humaneval', '--file', path.join(cli.dir, 'missing.jsonl'))).toBe(1);
  expect(errors.join('\n')).toMatch(/cannot read .*missing\.jsonl: ENOENT.*; nothing was imported/);
});
