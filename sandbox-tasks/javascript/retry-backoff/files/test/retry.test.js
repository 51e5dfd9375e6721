'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { retry } = require('../lib/retry.js');

test('resolves with the result of a call that succeeds', async () => {
  const pauses = [];
  const result = await retry(async () => 'paid', { sleep: async (ms) => pauses.push(ms) });
  assert.equal(result, 'paid');
  assert.deepEqual(pauses, []);
});
