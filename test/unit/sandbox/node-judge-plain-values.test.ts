/**
 * The honest value compared, in JavaScript: a boxed primitive and an instance of a subclass of
 * Array, Map, Set, Date, Number, String or Boolean cross as the plain value they hold, read with the
 * built-in type's own methods, so an overridden `valueOf`, `toString`, iterator or `entries` decides
 * nothing; what still cannot cross is named in the judge's report, for the owner alone.
 */
import { judgedNode } from '../../support/judged-runs';

const header = (imports: string) =>
  `import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport loose from 'node:assert';\nimport { ${imports} } from '../subject.mjs';\n\n`;

describe('the JavaScript judge compares the plain value', () => {
  it('of boxed primitives and subclasses of the plain types, whatever they override', async () => {
    const code = {
      'subject.mjs': [
        'class Days extends Number { valueOf() { return 0; } toString() { return "many"; } }',
        'class Name extends String { toString() { return "someone else"; } valueOf() { return "x"; } }',
        'class Row extends Array { *[Symbol.iterator]() { yield 99; } }',
        'class Table extends Map { *entries() { yield ["other", 0]; } get() { return 0; } }',
        'class Bag extends Set { *values() { yield 0; } }',
        'class When extends Date { getTime() { return 1; } }',
        'export function values() {',
        '  return [new Days(366), new Name("ada"), new Boolean(false), Object(5n), new Number(2.5),',
        '    Row.from([1, new Days(2)]), new Table([["k", 1]]), new Bag([4]), new When(0)];',
        '}',
        '',
      ].join('\n'),
    };
    const tests = {
      'values.test.mjs':
        header('values') +
        "test('values', () => {\n" +
        '  assert.deepStrictEqual(values(), [366, "ada", false, 5n, 2.5, [1, 2], new Map([["k", 1]]), new Set([4]), new Date(0)]);\n' +
        '});\n',
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ values: 'passed' });
    expect(run.uncompared).toEqual([]);
  });

  it('so a lying subclass, wrong but claiming the right primitive, still fails', async () => {
    const code = {
      'subject.mjs':
        'class Days extends Number { valueOf() { return 366; } }\nexport const daysInYear = () => new Days(365);\n',
    };
    const tests = {
      'days.test.mjs':
        header('daysInYear') +
        "test('loose', () => loose.equal(daysInYear(), 366));\n" +
        "test('strict', () => assert.equal(daysInYear(), 366));\n",
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ loose: 'failed', strict: 'failed' });
  });

  it('and names what it cannot compare in its report, for the owner', async () => {
    const code = {
      'subject.mjs': 'class Days { valueOf() { return 366; } }\nexport const daysInYear = () => new Days();\n',
    };
    const tests = { 'days.test.mjs': header('daysInYear') + "test('loose', () => loose.equal(daysInYear(), 366));\n" };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ loose: 'failed' });
    expect(run.uncompared).toEqual(['returned a `Days`, which the judge cannot compare as a plain value']);
    expect(run.score.uncompared).toEqual(run.uncompared);
  });
});
