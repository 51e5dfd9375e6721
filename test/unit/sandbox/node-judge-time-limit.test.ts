/**
 * A JavaScript candidate's promise that never settles: the first call past its time limit breaks the
 * wire, as a call that gets no answer does, so the tests after it fail at once with that reason rather
 * than each waiting its own limit (the Python judge does the same).
 */
import { judgedNode } from '../../support/judged-runs';

const header =
  "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { quick, never } from '../subject.mjs';\n\n";

it('breaks the wire at the first promise that outlives its time limit', async () => {
  const code = { 'subject.mjs': 'export const quick = () => 1;\nexport const never = () => new Promise(() => {});\n' };
  const tests = {
    'never.test.mjs':
      header +
      "test('a quick', () => assert.equal(quick(), 1));\n" +
      "test('b never settles', async () => { await never(); });\n" +
      "test('c after', () => assert.equal(quick(), 1));\n" +
      "test('d never settles either', async () => { await never(); });\n",
  };
  const run = await judgedNode(code, tests, { callSeconds: 2 });
  expect(run.outcomes).toEqual({
    'a quick': 'passed',
    'b never settles': 'failed',
    'c after': 'failed',
    'd never settles either': 'failed',
  });
  expect(run.tampered).toBeNull();
});
