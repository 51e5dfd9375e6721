import test from 'node:test';
import assert from 'node:assert/strict';
import { createRouter, matchRoute } from '../lib/router.mjs';

test('matches a literal route exactly', () => {
  assert.deepEqual(matchRoute('/health', '/health'), {});
  assert.equal(matchRoute('/health', '/Health'), null);
  assert.equal(matchRoute('/health', '/ready'), null);
});

test('reads parameters', () => {
  assert.deepEqual(matchRoute('/users/:id/posts/:post', '/users/42/posts/7'), { id: '42', post: '7' });
});

test('refuses a path with more segments than the pattern', () => {
  assert.equal(matchRoute('/users/:id', '/users/42/delete'), null);
});

test('refuses a missing or empty parameter', () => {
  assert.equal(matchRoute('/users/:id', '/users'), null);
  assert.equal(matchRoute('/users/:id/posts', '/users//posts'), null);
});

test('ignores trailing slashes on the path', () => {
  assert.deepEqual(matchRoute('/users/:id', '/users/42/'), { id: '42' });
  assert.deepEqual(matchRoute('/health', '/health//'), {});
});

test('decodes parameters, and refuses a malformed escape', () => {
  assert.deepEqual(matchRoute('/files/:name', '/files/annual%20report%C3%A9'), { name: 'annual reporté' });
  assert.equal(matchRoute('/files/:name', '/files/100%'), null);
});

test('ignores the query string and the fragment', () => {
  assert.deepEqual(matchRoute('/users/:id', '/users/42?tab=posts'), { id: '42' });
  assert.deepEqual(matchRoute('/users/:id', '/users/42#bio'), { id: '42' });
  assert.deepEqual(matchRoute('/users/:id', '/users/42/?a=/b/c'), { id: '42' });
});

test('a final * matches the rest of the path', () => {
  assert.deepEqual(matchRoute('/static/*', '/static/css/site%20main.css'), { '*': 'css/site main.css' });
  assert.deepEqual(matchRoute('/u/:id/*', '/u/9/a'), { id: '9', '*': 'a' });
  assert.equal(matchRoute('/static/*', '/static'), null);
  assert.equal(matchRoute('/static/*', '/static/'), null);
});

test('the router takes the first route that matches', () => {
  const router = createRouter([
    ['/users/new', 'newUser'],
    ['/users/:id', 'showUser'],
    ['/users/:id/edit', 'editUser'],
  ]);
  assert.deepEqual(router.resolve('/users/new'), { handler: 'newUser', params: {} });
  assert.deepEqual(router.resolve('/users/7'), { handler: 'showUser', params: { id: '7' } });
  assert.deepEqual(router.resolve('/users/7/edit'), { handler: 'editUser', params: { id: '7' } });
  assert.equal(router.resolve('/teams/7'), null);
});
