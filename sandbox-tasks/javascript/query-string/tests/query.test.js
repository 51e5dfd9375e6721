'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseQuery } = require('../lib/query.js');
const { campaignOf } = require('../lib/links.js');

test('reads key=value pairs', () => {
  assert.deepEqual(parseQuery('page=2&sort=date'), { page: '2', sort: 'date' });
});

test('ignores a leading question mark', () => {
  assert.deepEqual(parseQuery('?page=2'), { page: '2' });
});

test('decodes percent escapes and plus signs', () => {
  assert.deepEqual(parseQuery('q=caf%C3%A9+au+lait&city%20name=New%20York'), {
    q: 'café au lait',
    'city name': 'New York',
  });
});

test('keeps a malformed escape as written', () => {
  assert.deepEqual(parseQuery('discount=100%&x=%zz'), { discount: '100%', x: '%zz' });
});

test('keeps everything after the first equals sign', () => {
  assert.deepEqual(parseQuery('token=ab==&next=/a?b=c'), { token: 'ab==', next: '/a?b=c' });
});

test('gives an empty value to a key without one', () => {
  assert.deepEqual(parseQuery('debug&lang='), { debug: '', lang: '' });
});

test('collects the values of a repeated key in order', () => {
  assert.deepEqual(parseQuery('tag=a&x=1&tag=b&tag=c'), { tag: ['a', 'b', 'c'], x: '1' });
});

test('skips empty pieces', () => {
  assert.deepEqual(parseQuery('a=1&&b=2&'), { a: '1', b: '2' });
  assert.deepEqual(parseQuery(''), {});
  assert.deepEqual(parseQuery('?'), {});
});

test('finds the campaign of a full link', () => {
  assert.equal(campaignOf('https://shop.example/item?utm_campaign=spring+sale&utm_source=mail'), 'spring sale');
});
