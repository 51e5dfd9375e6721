'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { wrap } = require('../lib/wrap.js');

const LETTER =
  'Thank you for your order. Your parcel left our warehouse this morning and should arrive within three working days.';

test('leaves a short line alone', () => {
  assert.equal(wrap('Hello there', 20), 'Hello there');
});

test('breaks between words', () => {
  assert.equal(wrap('aaa bbb ccc', 7), 'aaa bbb\nccc');
});

test('counts the space between words', () => {
  assert.equal(wrap('aaa bbb', 6), 'aaa\nbbb');
  const lines = wrap(LETTER, 20).split('\n');
  assert.ok(
    lines.every((line) => line.length <= 20),
    JSON.stringify(lines),
  );
  assert.equal(lines.join(' '), LETTER);
});

test('collapses runs of whitespace inside a paragraph', () => {
  assert.equal(wrap('  one   two\tthree\nfour  ', 40), 'one two three four');
});

test('cuts words longer than the width', () => {
  assert.equal(wrap('see https://example.test/a/b/c now', 8), 'see\nhttps://\nexample.\ntest/a/b\n/c now');
});

test('keeps paragraphs apart', () => {
  assert.equal(wrap('one two three\n\nfour five\n  \n\nsix', 9), 'one two\nthree\n\nfour five\n\nsix');
});

test('blank text gives an empty string', () => {
  assert.equal(wrap('', 10), '');
  assert.equal(wrap(' \n\t ', 10), '');
});

test('a width below 1 is a RangeError', () => {
  assert.throws(() => wrap('abc', 0), RangeError);
});
