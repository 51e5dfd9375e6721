'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { LruCache } = require('../lib/lru-cache.js');

function keysOf(cache, candidates) {
  return candidates.filter((key) => cache.has(key));
}

test('evicts the oldest entry when nothing was read', () => {
  const cache = new LruCache(2);
  cache.set('a', 1).set('b', 2).set('c', 3);
  assert.deepEqual(keysOf(cache, ['a', 'b', 'c']), ['b', 'c']);
  assert.equal(cache.size, 2);
});

test('a get counts as a use', () => {
  const cache = new LruCache(2);
  cache.set('a', 1).set('b', 2);
  assert.equal(cache.get('a'), 1);
  cache.set('c', 3);
  assert.deepEqual(keysOf(cache, ['a', 'b', 'c']), ['a', 'c']);
});

test('a missing key reads as undefined and changes nothing', () => {
  const cache = new LruCache(2);
  cache.set('a', 1).set('b', 2);
  assert.equal(cache.get('zzz'), undefined);
  assert.deepEqual(keysOf(cache, ['a', 'b']), ['a', 'b']);
});

test('replacing a value in a full cache evicts nothing', () => {
  const cache = new LruCache(2);
  cache.set('a', 1).set('b', 2).set('b', 20);
  assert.deepEqual(keysOf(cache, ['a', 'b']), ['a', 'b']);
  assert.equal(cache.get('b'), 20);
  assert.equal(cache.size, 2);
});

test('replacing a value counts as a use', () => {
  const cache = new LruCache(3);
  cache.set('a', 1).set('b', 2).set('c', 3).set('b', 20).set('d', 4).set('e', 5);
  assert.deepEqual(keysOf(cache, ['a', 'b', 'c', 'd', 'e']), ['b', 'd', 'e']);
});

test('has does not count as a use', () => {
  const cache = new LruCache(2);
  cache.set('a', 1).set('b', 2);
  assert.equal(cache.has('a'), true);
  cache.set('c', 3);
  assert.deepEqual(keysOf(cache, ['a', 'b', 'c']), ['b', 'c']);
});

test('capacity 0 stores nothing', () => {
  const cache = new LruCache(0);
  cache.set('a', 1);
  assert.equal(cache.get('a'), undefined);
  assert.equal(cache.size, 0);
});

test('onEvict hears of entries evicted for room only', () => {
  const evicted = [];
  const cache = new LruCache(2, { onEvict: (key, value) => evicted.push([key, value]) });
  cache.set('a', 1).set('b', 2);
  cache.get('a');
  cache.set('b', 20);
  cache.delete('b');
  cache.set('c', 3).set('d', 4);
  assert.deepEqual(evicted, [['a', 1]]);
  assert.deepEqual(keysOf(cache, ['a', 'b', 'c', 'd']), ['c', 'd']);
});
