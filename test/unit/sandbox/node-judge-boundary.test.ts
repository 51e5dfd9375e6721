/**
 * The judge and the candidate of a JavaScript task, wired as scoring wires them (minus the sandboxes):
 * plain values cross as data the judge makes its own, anything else as a handle that is never a value
 * and has no primitive value, the candidate's promises as the judge's, exceptions as the judge's
 * built-in types, a test's callbacks as functions the candidate calls back; what a call does to its
 * arguments is seen; a candidate that hangs, dies or breaks the protocol fails the tests that waited on
 * it, and one that breaks the protocol is marked tampered with.
 *
 * Then the cheats that worked from inside the code's process when the hidden tests ran beside it
 * (HEAD~1's run.mjs + report.mjs), each now failing or held: reading the hidden tests, patching the
 * prototypes the tests' own values use, answers whose valueOf or Symbol.toPrimitive (or a Proxy's)
 * wins a loose `==`, a forged node:assert AssertionError; and those the old harness already held
 * (node:assert patched, process.exitCode, a report written to every descriptor), still held.
 */
import { TAMPERED } from '../../../domain/sandbox/harness-report';
import { judgedNode } from '../../support/judged-runs';

const header = (imports: string) =>
  `import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport loose from 'node:assert';\nimport { ${imports} } from '../subject.mjs';\n\n`;
const test = (name: string, body: string, async = false) =>
  `test(${JSON.stringify(name)}, ${async ? 'async ' : ''}() => {\n${body}\n});\n`;

describe('the JavaScript judge and its candidate', () => {
  it('decode plain values into the judge’s own objects, exactly', async () => {
    const code = {
      'subject.mjs': [
        'export function values() {',
        '  const sparse = [1, , 3];',
        '  const bare = Object.create(null); bare.a = 1;',
        "  return [undefined, null, true, 2n ** 100n, -0, NaN, -Infinity, 'a\\u0000b\\ud800', [1, [2]],",
        "    { k: new Set([3]) }, new Map([[1, 'x']]), new Date(0), bare, sparse];",
        '}',
        'export const identity = (value) => value;',
        'export const LIMIT = 5;',
        '',
      ].join('\n'),
    };
    const tests = {
      'values.test.mjs':
        header('values, identity, LIMIT') +
        test(
          'values',
          [
            'const v = values();',
            'assert.ok(Array.isArray(v));',
            'assert.equal(v[0], undefined); assert.equal(v[1], null); assert.equal(v[2], true);',
            'assert.equal(v[3], 2n ** 100n); assert.ok(Object.is(v[4], -0)); assert.ok(Number.isNaN(v[5]));',
            "assert.equal(v[6], -Infinity); assert.equal(v[7], 'a\\u0000b\\ud800');",
            'assert.deepEqual(v[8], [1, [2]]); assert.deepEqual(v[9], { k: new Set([3]) });',
            "assert.deepEqual(v[10], new Map([[1, 'x']])); assert.ok(v[11] instanceof Date); assert.equal(v[11].getTime(), 0);",
            'assert.equal(Object.getPrototypeOf(v[12]), null); assert.equal(v[12].a, 1);',
            'assert.deepEqual(v[13], [1, , 3]); assert.equal(1 in v[13], false);',
            'assert.equal(LIMIT, 5);',
          ].join('\n'),
        ) +
        test(
          'round trip',
          "const data = { a: [1, 2.5, 'x'], b: new Map([['k', new Set([null])]]) };\nassert.deepEqual(identity(data), data);",
        ),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ values: 'passed', 'round trip': 'passed' });
    expect(run.tampered).toBeNull();
  });

  it("keep the candidate's objects behind handles: methods answer, but a handle is never a value", async () => {
    const code = {
      'subject.mjs': [
        'export class Counter {',
        '  constructor(start) { this.count = start; }',
        '  bump(by = 1) { this.count += by; return this.count; }',
        '  self() { return this; }',
        '}',
        'export const counterLike = () => new Counter(1);',
        '',
      ].join('\n'),
    };
    const tests = {
      'handles.test.mjs':
        header('Counter, counterLike') +
        test(
          'object',
          'const c = new Counter(5);\nassert.equal(c.bump(), 6);\nassert.equal(c.bump(4), 10);\nassert.equal(c.count, 10);\nassert.equal(c.self(), c);\nassert.equal(`${c}`, "[object Object]");',
        ) +
        test('not a plain object', 'assert.notDeepStrictEqual(counterLike(), { count: 1 });') +
        test('no primitive value', 'loose.equal(counterLike(), 1);'),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ object: 'passed', 'not a plain object': 'passed', 'no primitive value': 'failed' });
  });

  it("throw the candidate's exceptions as the judge's built-in types, its own classes under their built-in base", async () => {
    const code = {
      'subject.mjs': [
        'export class ParseError extends TypeError {',
        "  constructor(text) { super('not a number: ' + text); this.name = 'ParseError'; this.code = 'E_PARSE'; }",
        '}',
        'export function parse(text) {',
        '  if (!/^\\d+$/.test(text)) throw new ParseError(text);',
        '  return Number(text);',
        '}',
        "export function width(n) { if (n < 1) throw new RangeError('width below 1'); return n; }",
        "export function thrown() { throw 'a string'; }",
        '',
      ].join('\n'),
    };
    const tests = {
      'errors.test.mjs':
        header('ParseError, parse, width, thrown') +
        test('builtin', 'assert.throws(() => width(0), RangeError);\nassert.throws(() => width(0), /width below 1/);') +
        test('base', "assert.throws(() => parse('x'), TypeError);") +
        test(
          'own class',
          "assert.throws(() => parse('y'), ParseError);\nassert.throws(() => parse('y'), { name: 'ParseError', code: 'E_PARSE', message: 'not a number: y' });",
        ) +
        test('not an error', "assert.throws(() => thrown(), (value) => value === 'a string');") +
        test('no error', "assert.equal(parse('12'), 12);"),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({
      builtin: 'passed',
      base: 'passed',
      'own class': 'passed',
      'not an error': 'passed',
      'no error': 'passed',
    });
  });

  it("let the candidate call a test's callbacks, await the judge's promises, and show what a call did to its arguments", async () => {
    const code = {
      'subject.mjs': [
        'export function each(items, fn) { for (const item of items) fn.call(null, item); }',
        "export function callBack(fn) { try { fn(); } catch (error) { return 'caught ' + error.name; } }",
        'export function sortInPlace(items) { items.sort(); }',
        'export function same(items) { return items; }',
        'export function fill(settings) { settings.filled = true; settings.tags.push("x"); }',
        'export async function later(value) { await null; return value * 2; }',
        "export async function fails() { await null; throw new RangeError('late'); }",
        'export async function relay(operation) { return (await operation(3)) + 1; }',
        'export async function rethrow(operation) { try { await operation(); } catch (error) { throw error; } }',
        '',
      ].join('\n'),
    };
    const tests = {
      'calls.test.mjs':
        header('each, callBack, sortInPlace, same, fill, later, fails, relay, rethrow') +
        test('callback', 'const seen = [];\neach([1, 2], (n) => seen.push(n));\nassert.deepEqual(seen, [1, 2]);') +
        test('judge error', "assert.equal(callBack(() => { throw new TypeError('no'); }), 'caught TypeError');") +
        test('mutation seen', 'const items = [3, 1, 2];\nsortInPlace(items);\nassert.deepEqual(items, [1, 2, 3]);') +
        test('identity kept', 'const items = [1];\nassert.equal(same(items), items);') +
        test(
          'object filled',
          "const settings = { tags: [] };\nfill(settings);\nassert.deepEqual(settings, { tags: ['x'], filled: true });",
        ) +
        test('promise', 'assert.equal(await later(21), 42);', true) +
        test('rejection', "await assert.rejects(fails(), { name: 'RangeError', message: 'late' });", true) +
        test('judge promise', 'assert.equal(await relay(async (n) => n * 10), 31);', true) +
        test(
          'judge error comes back as itself',
          "const mine = new Error('mine');\nawait assert.rejects(rethrow(async () => { throw mine; }), (error) => error === mine);",
          true,
        ),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({
      callback: 'passed',
      'judge error': 'passed',
      'mutation seen': 'passed',
      'identity kept': 'passed',
      'object filled': 'passed',
      promise: 'passed',
      rejection: 'passed',
      'judge promise': 'passed',
      'judge error comes back as itself': 'passed',
    });
    expect(run.tampered).toBeNull();
  });

  it('answer a CommonJS test’s require of the code, and leave its own helpers alone', async () => {
    const code = { 'lib/cache.js': "'use strict';\nexports.twice = (n) => n * 2;\n" };
    const tests = {
      'helper.js': 'exports.three = 3;\n',
      'cache.test.js': [
        "const test = require('node:test');",
        "const assert = require('node:assert/strict');",
        "const { twice } = require('../lib/cache.js');",
        "const { three } = require('./helper.js');",
        "test('required', () => assert.equal(twice(three), 6));",
        '',
      ].join('\n'),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ required: 'passed' });
  });

  it('fail the test that waited on a candidate that hangs, and every test after it', async () => {
    const code = { 'subject.mjs': 'export const quick = () => 1;\nexport function forever() { for (;;); }\n' };
    const tests = {
      'hang.test.mjs':
        header('quick, forever') +
        test('a quick', 'assert.equal(quick(), 1);') +
        test('b hangs', 'forever();') +
        test('c after', 'assert.equal(quick(), 1);'),
    };
    const run = await judgedNode(code, tests, { callSeconds: 1 });
    expect(run.outcomes).toEqual({ 'a quick': 'passed', 'b hangs': 'failed', 'c after': 'failed' });
    expect(run.tampered).toBeNull();
  });

  it('count what passed before a candidate died, and nothing after', async () => {
    const code = { 'subject.mjs': 'export const quick = () => 1;\nexport function die() { process.exit(3); }\n' };
    const tests = {
      'die.test.mjs':
        header('quick, die') +
        test('a quick', 'assert.equal(quick(), 1);') +
        test('b dies', 'die();') +
        test('c after', 'assert.equal(quick(), 1);'),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ 'a quick': 'passed', 'b dies': 'failed', 'c after': 'failed' });
    expect(run.score.passed).toBe(1);
  });
});

describe('cheats from inside the code’s process, now on the other side of the wire', () => {
  it("reading the hidden tests to answer from them: they are not the candidate's to read", async () => {
    // On the old harness the tests sat in the code's folder: this passed.
    const code = {
      'subject.mjs': [
        "import fs from 'node:fs';",
        'export function answer() {',
        "  const text = fs.readFileSync(new URL('./.hidden-tests/answer.test.mjs', import.meta.url), 'utf8');",
        '  return Number(/answer\\(\\), (\\d+)/.exec(text)[1]);',
        '}',
        '',
      ].join('\n'),
    };
    const tests = { 'answer.test.mjs': header('answer') + test('answer', 'assert.equal(answer(), 7919);') };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ answer: 'failed' });
  });

  it('patching the prototypes the tests’ values use: the judge’s values have the judge’s own', async () => {
    // On the old harness both passed: the answers were objects of the one process.
    const code = {
      'subject.mjs': [
        'Array.prototype.includes = () => true;',
        'Object.prototype.debug = true;',
        "export const tags = () => ['a'];",
        'export const config = () => ({});',
        '',
      ].join('\n'),
    };
    const tests = {
      'prototypes.test.mjs':
        header('tags, config') +
        test('includes', "assert.ok(tags().includes('b'));") +
        test('inherited', 'assert.equal(config().debug, true);'),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ includes: 'failed', inherited: 'failed' });
  });

  it('answers that win a loose == through valueOf, Symbol.toPrimitive or a Proxy: no primitive value here', async () => {
    // On the old harness all three passed node:assert's loose equal.
    const code = {
      'subject.mjs': [
        'export const byValueOf = () => ({ valueOf: () => 42 });',
        'export const byToPrimitive = () => ({ [Symbol.toPrimitive]: () => 42 });',
        'export const byProxy = () => new Proxy({}, { get: (t, key) => (key === Symbol.toPrimitive ? () => 42 : undefined) });',
        '',
      ].join('\n'),
    };
    const tests = {
      'loose.test.mjs':
        header('byValueOf, byToPrimitive, byProxy') +
        test('valueOf', 'loose.equal(byValueOf(), 42);') +
        test('toPrimitive', 'loose.equal(byToPrimitive(), 42);') +
        test('proxy', 'loose.equal(byProxy(), 42);'),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ valueOf: 'failed', toPrimitive: 'failed', proxy: 'failed' });
  });

  it("a forged AssertionError: the candidate cannot make the judge's", async () => {
    // On the old harness node:assert's AssertionError was the code's to construct: this passed.
    const code = {
      'subject.mjs': [
        "import assert from 'node:assert';",
        "export function check() { throw new assert.AssertionError({ message: 'forged', actual: 1, expected: 1, operator: 'strictEqual' }); }",
        '',
      ].join('\n'),
    };
    const tests = {
      'forged.test.mjs': header('check') + test('forged', 'assert.throws(() => check(), assert.AssertionError);'),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ forged: 'failed' });
  });

  it("node:assert patched and process.exitCode set: the candidate's own, never the judge's", async () => {
    // Held on the old harness too (node:assert frozen, the score never read from the exit code).
    const code = {
      'lib/patch.js': [
        "const assert = require('node:assert/strict');",
        "try { Object.defineProperty(assert, 'equal', { value: () => {} }); } catch {}",
        'try { assert.equal = () => {}; } catch {}',
        'process.exitCode = 0;',
        "exports.wrong = () => 'wrong';",
        '',
      ].join('\n'),
    };
    const tests = {
      'patched.test.js': [
        "const test = require('node:test');",
        "const assert = require('node:assert/strict');",
        "const { wrong } = require('../lib/patch.js');",
        "test('patched', () => assert.equal(wrong(), 'right'));",
        '',
      ].join('\n'),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ patched: 'failed' });
  });

  it('a report written to every descriptor, the wire among them: tampered with, in the arena’s words', async () => {
    // Held on the old harness too (no nonce); here what reaches the wire breaks the protocol.
    const report = JSON.stringify({
      nonce: 'f'.repeat(48),
      harness: 'node-judge',
      tests: [],
      errors: [],
      tampered: null,
    });
    const code = {
      'subject.mjs': [
        "import fs from 'node:fs';",
        'export const quick = () => 1;',
        'export function scribble() {',
        `  for (let fd = 3; fd < 12; fd++) { try { fs.writeSync(fd, ${JSON.stringify(report + '\n')}); } catch {} }`,
        '  return 1;',
        '}',
        '',
      ].join('\n'),
    };
    const tests = {
      'scribble.test.mjs':
        header('quick, scribble') + test('a quick', 'assert.equal(quick(), 1);') + test('b scribbles', 'scribble();'),
    };
    const run = await judgedNode(code, tests);
    expect(run.outcomes).toEqual({ 'a quick': 'passed', 'b scribbles': 'failed' });
    expect(run.tampered).toBe(TAMPERED.protocol);
    expect(run.detail).toMatch(/past the wire's limit|not JSON|not a message/);
    expect(run.score).toMatchObject({ passed: 0, tampered: TAMPERED.protocol });
  });
});
