'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { LruCache } = require('../lib/lru-cache.js');

test('stores and returns values', () => {
  const cache = new LruCache(2);
  cache.set('ada', 'card-1');
  assert.equal(cache.get('ada'), 'card-1');
  assert.equal(cache.size, 1);
});
