'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { compareVersions, latest } = require('../versions.js');

test('orders patch releases', () => {
  assert.equal(compareVersions('1.2.3', '1.2.4'), -1);
  assert.equal(latest(['1.2.4', '1.2.3']), '1.2.4');
});
