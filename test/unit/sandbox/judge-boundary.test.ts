/**
 * The judge and the candidate of a Python task, wired as scoring wires them (minus the sandboxes):
 * plain values cross as data the judge makes its own, anything else as a handle that is never a
 * value, exceptions as their built-in type, a test's fakes as callables the candidate calls back;
 * what a call does to its arguments is seen; a candidate that hangs, dies or breaks the protocol
 * fails the tests that waited on it, and one that breaks the protocol is marked tampered with.
 */
import { TAMPERED } from '../../../domain/sandbox/harness-report';
import { judgedPython, pythonTest } from '../../support/judged-runs';

const header = 'import math, unittest\nimport subject\n\nclass T(unittest.TestCase):\n';
const test = pythonTest;

describe('the judge and its candidate', () => {
  it('decode plain values into the judge’s own objects, exactly', async () => {
    const code = [
      'def values():',
      '    return [None, True, 2 ** 100, -0.0, float("nan"), float("inf"), "a\\x00b\\ud800", b"\\x00\\xff",',
      '            (1, [2]), {"k": {3}}, frozenset({4}), 1 + 2j, bytearray(b"x"), {(1, 2): "tuple key"}]',
      'def identity(value):',
      '    return value',
      '',
    ].join('\n');
    const tests =
      header +
      test(
        'values',
        [
          'v = subject.values()',
          'self.assertIs(type(v), list)',
          'self.assertIsNone(v[0]); self.assertIs(v[1], True)',
          'self.assertIs(type(v[2]), int); self.assertEqual(v[2], 2 ** 100)',
          'self.assertEqual(math.copysign(1, v[3]), -1.0)',
          'self.assertTrue(math.isnan(v[4])); self.assertEqual(v[5], float("inf"))',
          'self.assertEqual(v[6], "a\\x00b\\ud800"); self.assertEqual(v[7], b"\\x00\\xff")',
          'self.assertEqual(v[8], (1, [2])); self.assertIs(type(v[8]), tuple)',
          'self.assertEqual(v[9], {"k": {3}}); self.assertEqual(v[10], frozenset({4}))',
          'self.assertEqual(v[11], 1 + 2j); self.assertEqual(v[12], bytearray(b"x"))',
          'self.assertEqual(v[13], {(1, 2): "tuple key"})',
        ].join('\n'),
      ) +
      test(
        'round_trip',
        'data = {"a": [1, 2.5, "x"], "b": (None, {7})}\nself.assertEqual(subject.identity(data), data)',
      );
    const run = await judgedPython(code, tests);
    expect(run.outcomes).toEqual({ test_values: 'passed', test_round_trip: 'passed' });
    expect(run.tampered).toBeNull();
  });

  it("keep the candidate's objects behind handles: methods answer, but a handle is never a value nor a truth", async () => {
    const code = [
      'class Counter:',
      '    def __init__(self, start):',
      '        self.count = start',
      '    def bump(self, by=1):',
      '        self.count += by',
      '        return self.count',
      'class Anything(int):',
      '    def __eq__(self, other):',
      '        return True',
      '    __hash__ = int.__hash__',
      'class Yes:',
      '    def __bool__(self):',
      '        return True',
      'def anything():',
      '    return Anything(0)',
      'def yes():',
      '    return Yes()',
      '',
    ].join('\n');
    const tests =
      header +
      test(
        'object',
        'c = subject.Counter(5)\nself.assertEqual(c.bump(), 6)\nself.assertEqual(c.bump(by=4), 10)\nself.assertEqual(c.count, 10)',
      ) +
      test('always_equal', 'self.assertEqual(subject.anything(), 3)') +
      test('always_true', 'self.assertTrue(subject.yes())') +
      test('not_a_value', 'self.assertNotEqual(subject.Counter(1), 1)');
    const run = await judgedPython(code, tests);
    expect(run.outcomes).toEqual({
      test_object: 'passed',
      test_always_equal: 'failed',
      test_always_true: 'error',
      test_not_a_value: 'passed',
    });
  });

  it("raise the candidate's exceptions as their built-in types, and its own classes under their built-in base", async () => {
    const code = [
      'class ParseError(ValueError):',
      '    pass',
      'def parse(text):',
      '    if not text.isdigit():',
      '        raise ParseError("not a number: " + text)',
      '    return int(text)',
      'def divide(a, b):',
      '    return a / b',
      '',
    ].join('\n');
    const tests =
      header +
      test('builtin', 'with self.assertRaises(ZeroDivisionError):\n    subject.divide(1, 0)') +
      test(
        'base',
        'with self.assertRaises(ValueError) as caught:\n    subject.parse("x")\nself.assertEqual(str(caught.exception), "not a number: x")',
      ) +
      test('own_class', 'with self.assertRaises(subject.ParseError):\n    subject.parse("y")') +
      test('no_error', 'self.assertEqual(subject.parse("12"), 12)');
    const run = await judgedPython(code, tests);
    expect(run.outcomes).toEqual({
      test_builtin: 'passed',
      test_base: 'passed',
      test_own_class: 'passed',
      test_no_error: 'passed',
    });
  });

  it("let the candidate call a test's fakes, and show the caller what a call did to its arguments", async () => {
    const code = [
      'def elapsed(clock, start):',
      '    return clock() - start',
      'def call_back(fn):',
      '    try:',
      '        fn()',
      '    except KeyError as error:',
      '        return "caught " + type(error).__name__',
      'def sort_in_place(items):',
      '    items.sort()',
      'def shallow(settings):',
      '    copy = dict(settings)',
      '    return copy',
      '',
    ].join('\n');
    const tests =
      header +
      test('fake_clock', 'now = [100.0]\nself.assertEqual(subject.elapsed(lambda: now[0], 40.0), 60.0)') +
      test(
        'judge_error',
        'def boom():\n    raise KeyError("k")\nself.assertEqual(subject.call_back(boom), "caught KeyError")',
      ) +
      test('mutation_seen', 'items = [3, 1, 2]\nsubject.sort_in_place(items)\nself.assertEqual(items, [1, 2, 3])') +
      test(
        'sharing_seen',
        'base = {"db": {"host": "a"}}\ncopy = subject.shallow(base)\ncopy["db"]["host"] = "b"\nself.assertEqual(base["db"]["host"], "b")',
      );
    const run = await judgedPython(code, tests);
    expect(run.outcomes).toEqual({
      test_fake_clock: 'passed',
      test_judge_error: 'passed',
      test_mutation_seen: 'passed',
      test_sharing_seen: 'passed',
    });
  });

  it('fail the test that waited on a candidate that hangs, and every test after it', async () => {
    const code = 'import time\ndef quick():\n    return 1\ndef forever():\n    while True:\n        time.sleep(1)\n';
    const tests =
      header +
      test('a_quick', 'self.assertEqual(subject.quick(), 1)') +
      test('b_hangs', 'subject.forever()') +
      test('c_after', 'self.assertEqual(subject.quick(), 1)');
    const run = await judgedPython(code, tests, { callSeconds: 1 });
    expect(run.outcomes).toEqual({ test_a_quick: 'passed', test_b_hangs: 'error', test_c_after: 'error' });
    expect(run.tampered).toBeNull();
  });

  it('count what passed before a candidate died, and nothing after', async () => {
    const code = 'import os\ndef quick():\n    return 1\ndef die():\n    os._exit(3)\n';
    const tests =
      header +
      test('a_quick', 'self.assertEqual(subject.quick(), 1)') +
      test('b_dies', 'subject.die()') +
      test('c_after', 'self.assertEqual(subject.quick(), 1)');
    const run = await judgedPython(code, tests);
    expect(run.outcomes).toEqual({ test_a_quick: 'passed', test_b_dies: 'error', test_c_after: 'error' });
    expect(run.score.passed).toBe(1);
  });

  it('mark a candidate that writes on the wire what the protocol does not allow as tampered with, in the arena’s words', async () => {
    const code =
      'import os\ndef quick():\n    return 1\ndef scribble():\n    os.write(9, b"\\x00\\x00\\x00\\x05hello")\n    return 1\n';
    const tests =
      header + test('a_quick', 'self.assertEqual(subject.quick(), 1)') + test('b_scribbles', 'subject.scribble()');
    const run = await judgedPython(code, tests);
    expect(run.outcomes).toEqual({ test_a_quick: 'passed', test_b_scribbles: 'error' });
    expect(run.tampered).toBe(TAMPERED.protocol);
    expect(run.detail).toBe('a frame that is not JSON');
    expect(run.score).toMatchObject({ passed: 0, tampered: TAMPERED.protocol });
  });
});
