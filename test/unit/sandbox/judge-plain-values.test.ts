/**
 * The honest value compared, in Python: a value of a subclass of a plain type crosses as its plain
 * value, read with the base type's own methods, so what the subclass overrides (`__eq__`, `__str__`,
 * `__iter__`, `__repr__`) decides nothing; a numpy-style scalar crosses as its `.item()`; and a value
 * that still cannot cross is named in the judge's report, for the owner alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_SANDBOX_TASKS_DIR, loadTaskCatalogue } from '../../../infra/sandbox/task-catalogue';
import { judgedPython, pythonTest } from '../../support/judged-runs';
import { prepareTaskFolder, runHarness } from '../../support/sandbox-tasks';

const header = 'import unittest\nimport subject\n\nclass T(unittest.TestCase):\n';
const test = pythonTest;

describe('the Python judge compares the plain value', () => {
  it('of subclasses of plain types, whatever they override', async () => {
    const code = [
      'import enum',
      'class Days(int):',
      '    def __eq__(self, other): return False',
      '    __hash__ = int.__hash__',
      '    def __repr__(self): return "Days(?)"',
      '    def __str__(self): return "many days"',
      '    def __index__(self): return 0',
      '    def __int__(self): return 0',
      'class Ratio(float):',
      '    def __eq__(self, other): return False',
      '    def __float__(self): return 0.0',
      'class Name(str):',
      '    def __str__(self): return "someone else"',
      '    def __eq__(self, other): return False',
      '    def __iter__(self): return iter("x")',
      'class Blob(bytes):',
      '    def __bytes__(self): return b"other"',
      'class Row(list):',
      '    def __iter__(self): return iter([99])',
      '    def __eq__(self, other): return False',
      '    def __len__(self): return 0',
      'class Pair(tuple):',
      '    def __iter__(self): return iter(())',
      'class Table(dict):',
      '    def items(self): return []',
      '    def __iter__(self): return iter(())',
      '    def keys(self): return []',
      'class Bag(set):',
      '    def __iter__(self): return iter(())',
      'class Frozen(frozenset):',
      '    def __iter__(self): return iter(())',
      'class Level(enum.IntEnum):',
      '    HIGH = 3',
      'class Colour(str, enum.Enum):',
      '    RED = "red"',
      'def values():',
      '    return [Days(366), Ratio(0.5), Name("ada"), Blob(b"ab"), Row([1, Days(2)]), Pair((1, 2)),',
      '            Table({"k": Row([3])}), Bag({4}), Frozen({5}), Level.HIGH, Colour.RED]',
      '',
    ].join('\n');
    const tests =
      header +
      test(
        'values',
        [
          'v = subject.values()',
          'self.assertEqual(v, [366, 0.5, "ada", b"ab", [1, 2], (1, 2), {"k": [3]}, {4}, frozenset({5}), 3, "red"])',
          'self.assertEqual([type(x) for x in v], [int, float, str, bytes, list, tuple, dict, set, frozenset, int, str])',
          'self.assertIs(type(v[4][1]), int)',
        ].join('\n'),
      );
    const run = await judgedPython(code, tests);
    expect(run.outcomes).toEqual({ test_values: 'passed' });
    expect(run.uncompared).toEqual([]);
  });

  it('so a lying subclass, wrong but equal to everything, still fails', async () => {
    const code = [
      'class Days(int):',
      '    def __eq__(self, other): return True',
      '    __hash__ = int.__hash__',
      'def days_in_year(year):',
      '    return Days(365)',
      '',
    ].join('\n');
    const run = await judgedPython(code, header + test('leap', 'self.assertEqual(subject.days_in_year(2000), 366)'));
    expect(run.outcomes).toEqual({ test_leap: 'failed' });
  });

  it('of numpy-style scalars, by their .item()', async () => {
    // A stand-in for numpy's scalar types (numpy is not installed here): the judge knows them by name.
    const code = [
      'class generic:',
      '    def __init__(self, value): self.value = value',
      '    def item(self): return self.value',
      'generic.__module__ = "numpy"',
      'class int64(generic):',
      '    def item(self): return -1',
      '    def __eq__(self, other): return True',
      'def count():',
      '    return [int64(7), generic(2.5)]',
      '',
    ].join('\n');
    const run = await judgedPython(code, header + test('count', 'self.assertEqual(subject.count(), [7, 2.5])'));
    expect(run.outcomes).toEqual({ test_count: 'passed' });
  });

  it('and names what it cannot compare in its report, for the owner', async () => {
    const code = [
      'class Days:',
      '    def __init__(self, n): self.n = n',
      '    def __eq__(self, other): return self.n == other',
      'class Yes:',
      '    def __bool__(self): return True',
      'def days_in_year(year):',
      '    return Days(366)',
      'def is_leap(year):',
      '    return Yes()',
      '',
    ].join('\n');
    const tests =
      header +
      test('days', 'self.assertEqual(subject.days_in_year(2000), 366)') +
      test('leap', 'self.assertTrue(subject.is_leap(2000))');
    const run = await judgedPython(code, tests);
    expect(run.outcomes).toEqual({ test_days: 'failed', test_leap: 'error' });
    expect(run.uncompared).toEqual([
      'returned a `Days`, which the judge cannot compare as a number',
      'returned a `Yes`, which the judge cannot read as a boolean',
    ]);
    expect(run.score.uncompared).toEqual(run.uncompared);
  });

  it('so a leap-year fix returning a subclass of int scores as the ints it holds', async () => {
    const [task] = (await loadTaskCatalogue(DEFAULT_SANDBOX_TASKS_DIR)).filter((t) => t.id === 'python/leap-year');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-days-'));
    try {
      await prepareTaskFolder(task!, folder, true);
      const file = path.join(folder, 'calendar_utils.py');
      const fixed = fs
        .readFileSync(file, 'utf8')
        .replace('return 366 if is_leap(year) else 365', 'return Days(366 if is_leap(year) else 365)');
      fs.writeFileSync(
        file,
        `${fixed}\n\nclass Days(int):\n    def __repr__(self):\n        return f"{int(self)} days"\n`,
      );
      const run = await runHarness(task!, folder);
      expect(run.score).toMatchObject({ passed: 8, total: 8 });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
