'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { retry } = require('../lib/retry.js');

/** An operation that fails `failures` times (with errors numbered by attempt), then resolves 'ok'. */
function flaky(failures) {
  const calls = [];
  const operation = async (attempt) => {
    calls.push(attempt);
    if (calls.length <= failures) {
      const error = new Error(`attempt ${attempt} failed`);
      error.code = `E${attempt}`;
      throw error;
    }
    return 'ok';
  };
  return { operation, calls };
}

function fakeSleep() {
  const pauses = [];
  return { pauses, sleep: async (ms) => void pauses.push(ms) };
}

test('resolves at once when the first attempt succeeds', async () => {
  const { operation, calls } = flaky(0);
  const { pauses, sleep } = fakeSleep();
  assert.equal(await retry(operation, { sleep }), 'ok');
  assert.deepEqual([calls, pauses], [[1], []]);
});

test('passes the attempt number', async () => {
  const { operation, calls } = flaky(1);
  const { sleep } = fakeSleep();
  assert.equal(await retry(operation, { sleep }), 'ok');
  assert.deepEqual(calls, [1, 2]);
});

test('makes every attempt it is given', async () => {
  const { operation, calls } = flaky(2);
  const { pauses, sleep } = fakeSleep();
  assert.equal(await retry(operation, { attempts: 3, delayMs: 100, sleep }), 'ok');
  assert.deepEqual(
    [calls, pauses],
    [
      [1, 2, 3],
      [100, 200],
    ],
  );
});

test('rejects with the last error, not a new one', async () => {
  const { operation, calls } = flaky(10);
  const { sleep } = fakeSleep();
  await assert.rejects(retry(operation, { attempts: 3, sleep }), (error) => {
    assert.equal(error.code, 'E3');
    return true;
  });
  assert.deepEqual(calls, [1, 2, 3]);
});

test('doubles the pause and does not pause after the last attempt', async () => {
  const { operation } = flaky(10);
  const { pauses, sleep } = fakeSleep();
  await assert.rejects(retry(operation, { attempts: 5, delayMs: 50, sleep }));
  assert.deepEqual(pauses, [50, 100, 200, 400]);
});

test('one attempt means one call and no pause', async () => {
  const { operation, calls } = flaky(10);
  const { pauses, sleep } = fakeSleep();
  await assert.rejects(retry(operation, { attempts: 1, sleep }), { code: 'E1' });
  assert.deepEqual([calls, pauses], [[1], []]);
});

test('maxDelayMs caps each pause', async () => {
  const { operation } = flaky(10);
  const { pauses, sleep } = fakeSleep();
  await assert.rejects(retry(operation, { attempts: 5, delayMs: 100, maxDelayMs: 250, sleep }));
  assert.deepEqual(pauses, [100, 200, 250, 250]);
});

test('shouldRetry false rejects at once with that error', async () => {
  const { operation, calls } = flaky(10);
  const { pauses, sleep } = fakeSleep();
  const seen = [];
  const shouldRetry = (error) => {
    seen.push(error.code);
    return error.code !== 'E2';
  };
  await assert.rejects(retry(operation, { attempts: 5, sleep, shouldRetry }), { code: 'E2' });
  assert.deepEqual([calls, pauses, seen], [[1, 2], [100], ['E1', 'E2']]);
});

test('uses the defaults: three attempts from 100 ms', async () => {
  const { operation, calls } = flaky(10);
  const { pauses, sleep } = fakeSleep();
  await assert.rejects(retry(operation, { sleep }), { code: 'E3' });
  assert.deepEqual(
    [calls, pauses],
    [
      [1, 2, 3],
      [100, 200],
    ],
  );
});
