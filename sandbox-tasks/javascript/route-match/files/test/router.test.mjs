import test from 'node:test';
import assert from 'node:assert/strict';
import { matchRoute } from '../lib/router.mjs';

test('reads a parameter', () => {
  assert.deepEqual(matchRoute('/users/:id', '/users/42'), { id: '42' });
});
