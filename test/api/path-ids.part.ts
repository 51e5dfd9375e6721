/** The canonical id finds what it names, on the API and the website; the refusals of every other spelling are in offline/. */
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { idSpellings } from './support/refusals';

let t: TestApp;
let me: Registered;
let agentId: number;
beforeAll(async () => {
  t = await startTestApp();
  me = await register(t.app);
  agentId = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: me.auth,
      payload: { name: 'numbered', mode: 'pull' },
    })
  ).json().id;
});
afterAll(() => t.close());

describe('path ids', () => {
  it('the canonical id finds the agent', async () => {
    expect((await t.app.inject({ method: 'GET', url: `/api/agents/${agentId}`, headers: me.auth })).statusCode).toBe(
      200,
    );
    expect((await t.app.inject({ method: 'GET', url: `/api/users/${me.userId}` })).statusCode).toBe(200);
  });

  it('website pages treat other spellings as pages that do not exist', async () => {
    expect((await t.app.inject({ method: 'GET', url: `/agents/${agentId}` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/users/${me.userId}` })).statusCode).toBe(200);
    for (const spelled of idSpellings(agentId)) {
      expect({
        spelled,
        status: (await t.app.inject({ method: 'GET', url: `/agents/${spelled}` })).statusCode,
      }).toEqual({ spelled, status: 404 });
    }
    for (const spelled of idSpellings(me.userId)) {
      expect({ spelled, status: (await t.app.inject({ method: 'GET', url: `/users/${spelled}` })).statusCode }).toEqual(
        { spelled, status: 404 },
      );
    }
  });
});
