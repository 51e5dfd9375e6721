/**
 * Every 400 names the field and the rule in a plain sentence, never the validation library's
 * wording. Validation runs before any handler, so the app needs nothing behind it.
 */
import type { InjectOptions } from 'fastify';
import { buildOfflineApp, OFFLINE_AUTH, type OfflineApp } from '../../../support/offline-app';

let t: OfflineApp;
beforeAll(async () => {
  t = await buildOfflineApp();
});
afterAll(() => t.close());
/** Any agent and secret: a pull route checks them in its handler, after its input. */
const pullAgent = { id: 7, secret: 'not-checked-before-validation' };

async function detailOf(request: InjectOptions, status = 400): Promise<string> {
  const res = await t.app.inject(request);
  expect({ status: res.statusCode, body: res.json() }).toEqual({ status, body: { detail: expect.any(String) } });
  return res.json().detail;
}

const LIBRARY_WORDING = /Invalid input|expected \w+|received|Too (big|small)|params\.|body\.|querystring\.|^\w+: /;

describe('validation messages', () => {
  it.each([
    [
      'a non-numeric path id',
      { method: 'GET', url: '/api/agents/abc' },
      'id must be a whole number written in plain digits, such as 42',
    ],
    [
      'a path id past the largest id',
      { method: 'GET', url: '/api/agents/99999999999' },
      'id must be at most 2147483647',
    ],
    [
      'a missing name and, for push, webhook_url',
      { method: 'POST', url: '/api/agents', payload: {} },
      'name is required; webhook_url is required for push agents',
    ],
    [
      'an unknown mode',
      { method: 'POST', url: '/api/agents', payload: { name: 'a', mode: 'carrier-pigeon' } },
      'mode must be push, pull or a2a',
    ],
    [
      'a pull agent with a webhook_url',
      {
        method: 'POST',
        url: '/api/agents',
        payload: { name: 'a', mode: 'pull', webhook_url: 'http://127.0.0.1:9/hook' },
      },
      'webhook_url must be omitted for pull agents',
    ],
    [
      'an empty name',
      { method: 'POST', url: '/api/agents', payload: { name: '  ', mode: 'pull' } },
      'name must not be empty',
    ],
    [
      'a name that is not text',
      { method: 'POST', url: '/api/agents', payload: { name: 5, mode: 'pull' } },
      'name must be a string',
    ],
    [
      'tools_claimed that is not a list',
      { method: 'POST', url: '/api/agents', payload: { name: 'a', mode: 'pull', tools_claimed: 'grep' } },
      'tools_claimed must be an array',
    ],
    [
      'a tool that is too long',
      {
        method: 'POST',
        url: '/api/agents',
        payload: { name: 'a', mode: 'pull', tools_claimed: ['ok', 'x'.repeat(101)] },
      },
      'tools_claimed.1 must be at most 100 characters',
    ],
    [
      'a webhook_url that is not http',
      { method: 'POST', url: '/api/agents', payload: { name: 'a', webhook_url: 'ftp://example.com/hook' } },
      'webhook_url must be an http or https URL, such as https://agent.example/hook',
    ],
    [
      'a body that is not an object',
      { method: 'POST', url: '/api/agents', payload: [1, 2] },
      'the body must be a JSON object',
    ],
    [
      'a deadline over the limit',
      { method: 'POST', url: '/api/battles', payload: { prompt: 'hi', deadline_seconds: 301 } },
      'deadline_seconds must be at most 300',
    ],
    [
      'a deadline that is not whole',
      { method: 'POST', url: '/api/battles', payload: { prompt: 'hi', deadline_seconds: 1.5 } },
      'deadline_seconds must be a whole number',
    ],
    [
      'an unknown verdict',
      { method: 'POST', url: '/api/judge/1/vote', payload: { winner: 'c' } },
      'winner must be a, b, tie or both_bad',
    ],
    [
      'a username outside its rule',
      { method: 'PATCH', url: '/api/account', payload: { username: 'a' } },
      'username must be 3 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit',
    ],
    ['a page size of zero', { method: 'GET', url: '/api/agents/1/activity?limit=0' }, 'limit must be at least 1'],
    [
      'a page size that is not a number',
      { method: 'GET', url: '/api/agents/1/activity?limit=many' },
      'limit must be a whole number',
    ],
    ['a page past the last', { method: 'GET', url: '/api/users?page=100001' }, 'page must be at most 100000'],
  ])('%s', async (_case, request, expected) => {
    const detail = await detailOf({ ...(request as InjectOptions), headers: OFFLINE_AUTH });
    expect(detail).toBe(expected);
    expect(detail).not.toMatch(LIBRARY_WORDING);
  });

  it('pull work: a negative wait, and a result with both or neither of response and error', async () => {
    const headers = { 'x-arena-secret': pullAgent.secret };
    expect(await detailOf({ method: 'GET', url: `/api/agents/${pullAgent.id}/work/next?wait=-1`, headers })).toBe(
      'wait must not be negative',
    );
    const result = `/api/agents/${pullAgent.id}/work/main-1/result`;
    expect(await detailOf({ method: 'POST', url: result, headers, payload: { response: 'a', error: 'b' } })).toBe(
      'send exactly one of response or error',
    );
    expect(await detailOf({ method: 'POST', url: result, headers, payload: { latency_ms: 5 } })).toBe(
      'send exactly one of response or error',
    );
    expect(await detailOf({ method: 'POST', url: result, headers, payload: { error: '' } })).toBe(
      'error must not be empty',
    );
  });
});
