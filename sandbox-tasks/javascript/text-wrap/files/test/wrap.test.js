'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { wrap } = require('../lib/wrap.js');

test('leaves a short line alone', () => {
  assert.equal(wrap('Hello there', 20), 'Hello there');
});
