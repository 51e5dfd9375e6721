'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseQuery } = require('../lib/query.js');

test('reads key=value pairs', () => {
  assert.deepEqual(parseQuery('page=2&sort=date'), { page: '2', sort: 'date' });
});
