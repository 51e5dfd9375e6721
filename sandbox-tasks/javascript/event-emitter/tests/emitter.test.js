'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { Emitter } = require('../lib/emitter.js');

test('calls listeners in order with the arguments', () => {
  const seen = [];
  const emitter = new Emitter();
  emitter.on('save', (a, b) => seen.push(['first', a, b]));
  emitter.on('save', (a, b) => seen.push(['second', a, b]));
  assert.equal(emitter.emit('save', 'notes.md', 3), true);
  assert.deepEqual(seen, [
    ['first', 'notes.md', 3],
    ['second', 'notes.md', 3],
  ]);
});

test('a once listener runs once', () => {
  let calls = 0;
  const emitter = new Emitter().once('open', () => calls++);
  emitter.emit('open');
  emitter.emit('open');
  assert.equal(calls, 1);
});

test('a once listener does not make the next one miss the event', () => {
  const seen = [];
  const emitter = new Emitter();
  emitter.once('open', () => seen.push('once'));
  emitter.on('open', () => seen.push('after'));
  emitter.on('open', () => seen.push('last'));
  emitter.emit('open');
  emitter.emit('open');
  assert.deepEqual(seen, ['once', 'after', 'last', 'after', 'last']);
});

test('off removes a once listener by the function given to once', () => {
  let calls = 0;
  const listener = () => calls++;
  const emitter = new Emitter().once('close', listener);
  emitter.off('close', listener);
  assert.equal(emitter.emit('close'), false);
  assert.equal(calls, 0);
});

test('emit answers whether a listener was called', () => {
  const emitter = new Emitter();
  assert.equal(emitter.emit('nothing'), false);
  const listener = () => {};
  emitter.on('ping', listener);
  assert.equal(emitter.emit('ping'), true);
  emitter.off('ping', listener);
  assert.equal(emitter.emit('ping'), false);
});

test('a listener added during an emit waits for the next one', () => {
  const seen = [];
  const emitter = new Emitter();
  emitter.on('tick', (n) => {
    seen.push(`outer ${n}`);
    if (n === 1) emitter.on('tick', (m) => seen.push(`inner ${m}`));
  });
  emitter.emit('tick', 1);
  emitter.emit('tick', 2);
  assert.deepEqual(seen, ['outer 1', 'outer 2', 'inner 2']);
});

test('on, off and once chain', () => {
  const emitter = new Emitter();
  const listener = () => {};
  assert.equal(emitter.on('a', listener), emitter);
  assert.equal(emitter.once('a', listener), emitter);
  assert.equal(emitter.off('a', listener), emitter);
  assert.equal(emitter.off('never-registered', listener), emitter);
});
