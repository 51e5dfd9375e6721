/** A pull agent's mode refuses what only push agents take: a conflict (409), not a malformed request. The 400s are in offline/. */
import type { InjectOptions } from 'fastify';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

let t: TestApp;
let me: Registered;
let pullAgent: { id: number; secret: string };
beforeAll(async () => {
  t = await startTestApp();
  me = await register(t.app);
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: me.auth,
    payload: { name: 'puller', mode: 'pull' },
  });
  pullAgent = { id: created.json().id, secret: created.json().webhook_secret };
});
afterAll(() => t.close());

async function detailOf(request: InjectOptions, status: number): Promise<string> {
  const res = await t.app.inject(request);
  expect({ status: res.statusCode, body: res.json() }).toEqual({ status, body: { detail: expect.any(String) } });
  return res.json().detail;
}

describe('a pull agent and push-only fields', () => {
  it('a pull agent cannot take a webhook_url or a retest: a conflict with its mode (409), not a malformed request', async () => {
    const patch = await detailOf(
      {
        method: 'PATCH',
        url: `/api/agents/${pullAgent.id}`,
        headers: me.auth,
        payload: { webhook_url: 'http://127.0.0.1:9/hook' },
      },
      409,
    );
    expect(patch).toBe('pull agents have no webhook_url; create a push agent instead');
    const retest = await detailOf({ method: 'POST', url: `/api/agents/${pullAgent.id}/retest`, headers: me.auth }, 409);
    expect(retest).toBe('retest applies to push and a2a agents only; pull agents are never pinged');
  });
});
