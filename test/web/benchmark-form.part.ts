/**
 * The account page's benchmark: the owner chooses the suite and the trials, sees how many sessions
 * that is, and confirms before any starts.
 */
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { WebClient } from './support';

let t: TestApp;
let owner: Registered;
let web: WebClient;
let agentId: number;
let arenaTasks: number;
beforeAll(async () => {
  t = await startTestApp();
  owner = await register(t.app);
  const email = `bench${owner.userId}@example.org`;
  await t.app.inject({ method: 'PATCH', url: '/api/account', headers: owner.auth, payload: { email } });
  await t.app.inject({
    method: 'PUT',
    url: '/api/account/password',
    headers: owner.auth,
    payload: { password: 'a long enough password' },
  });
  web = new WebClient(t.app);
  expect((await web.submit('/login', { email, password: 'a long enough password' })).statusCode).toBe(303);
  agentId = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'benched', mode: 'pull' },
    })
  ).json().id;
  arenaTasks = (await t.app.inject({ method: 'GET', url: '/api/tasks?suite=arena' })).json().length;
});
afterAll(() => t.close());

const runs = async () =>
  (
    await t.orm.em
      .getConnection()
      .execute<Array<{ suite: string; trials: number; tasks: number }>>(
        `select suite, trials, tasks from benchmark_runs where agent_id = ? order by id`,
        [agentId],
      )
  ).map((r) => ({ ...r }));

it('offers each suite with its task count, and trials from 1 to 5', async () => {
  const page = (await web.request({ method: 'GET', url: '/account', headers: { accept: 'text/html' } })).body;
  expect(page).toContain(`<option value="arena">arena (${arenaTasks} tasks)</option>`);
  expect(page).toMatch(/<input type="number" name="trials" min="1" max="5" value="3" required>/);
  expect(page).not.toMatch(/Every active task 3 times \(\d+ sessions/);
});

it('shows the number of sessions and starts nothing until confirmed', async () => {
  const asked = await web.submit(`/account/agents/${agentId}/benchmark`, { suite: 'arena', trials: '2' });
  expect(asked.statusCode).toBe(200);
  expect(asked.body).toContain(`This starts <strong>${arenaTasks * 2} coding sessions</strong>`);
  expect(asked.body).toContain('<input type="hidden" name="confirm" value="yes">');
  expect(await runs()).toEqual([]);

  const started = await web.submit(`/account/agents/${agentId}/benchmark`, {
    suite: 'arena',
    trials: '2',
    confirm: 'yes',
  });
  expect(started.statusCode).toBe(303);
  expect(await runs()).toEqual([{ suite: 'arena', trials: 2, tasks: arenaTasks }]);
});

it.each([
  [{ suite: 'arena', trials: '9' }, 400, 'benched: trials must be 1 to 5'],
  [{ suite: 'nope', trials: '1' }, 400, 'benched: choose a suite: arena or humaneval'],
  [{ suite: 'humaneval', trials: '1' }, 409, 'benched: no task of the humaneval suite is active'],
])('refuses %j with a sentence and starts nothing, asked or confirmed', async (form, status, detail) => {
  const before = await runs();
  for (const confirm of [{}, { confirm: 'yes' }] as Array<Record<string, string>>) {
    const res = await web.submit(`/account/agents/${agentId}/benchmark`, { ...form, ...confirm });
    expect(res.statusCode).toBe(status);
    expect(res.body).toContain(detail);
  }
  expect(await runs()).toEqual(before);
});
