'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { compareVersions, latest } = require('../versions.js');

test('equal versions compare as 0', () => {
  assert.equal(compareVersions('2.4.1', '2.4.1'), 0);
});

test('orders single-digit parts', () => {
  assert.equal(compareVersions('1.2.3', '1.2.4'), -1);
  assert.equal(compareVersions('1.3.0', '1.2.9'), 1);
});

test('compares parts as numbers', () => {
  assert.equal(compareVersions('1.10.0', '1.9.0'), 1);
  assert.equal(compareVersions('2.0.0', '10.0.0'), -1);
  assert.equal(compareVersions('1.0.10', '1.0.9'), 1);
});

test('ignores a leading v', () => {
  assert.equal(compareVersions('v1.2.3', '1.2.3'), 0);
  assert.equal(compareVersions('v1.10.0', 'v1.9.0'), 1);
});

test('puts a pre-release below its release', () => {
  assert.equal(compareVersions('1.0.0-beta', '1.0.0'), -1);
  assert.equal(compareVersions('2.0.0', '2.0.0-rc.1'), 1);
});

test('orders pre-releases identifier by identifier', () => {
  const chain = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
  ];
  for (let i = 0; i + 1 < chain.length; i++) {
    assert.equal(compareVersions(chain[i], chain[i + 1]), -1, `${chain[i]} < ${chain[i + 1]}`);
    assert.equal(compareVersions(chain[i + 1], chain[i]), 1, `${chain[i + 1]} > ${chain[i]}`);
  }
});

test('ignores build metadata', () => {
  assert.equal(compareVersions('1.0.0+build.5', '1.0.0'), 0);
  assert.equal(compareVersions('1.0.0-rc.1+sha.5114f85', '1.0.0-rc.1'), 0);
});

test('latest picks the highest, as written', () => {
  assert.equal(latest(['1.9.0', '1.10.0', '1.10.0-rc.1', 'v1.2.0']), '1.10.0');
  assert.equal(latest(['v2.0.0', 'v10.0.0', 'v9.9.9']), 'v10.0.0');
});

test('latest of no versions is undefined', () => {
  assert.equal(latest([]), undefined);
});
