'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { Emitter } = require('../lib/emitter.js');

test('calls a listener with the arguments', () => {
  const seen = [];
  const emitter = new Emitter().on('save', (name) => seen.push(name));
  emitter.emit('save', 'notes.md');
  assert.deepEqual(seen, ['notes.md']);
});
