import type { Browser } from 'playwright-core';
import { hashToken } from '../../domain/credentials';
import { answer, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type TestApp } from '../support/test-app';
import { launchBrowser, screenshot } from './browser';
import { signUpInBrowser, WebClient } from './support';

let t: TestApp;
let agents: TestAgentServer;
let browser: Browser;
let base: string;

beforeAll(async () => {
  t = await startTestApp({ ARENA_PUBLIC_URL: 'http://127.0.0.1' });
  agents = await startAgentServer((req, res) => {
    const { prompt } = JSON.parse(req.body);
    answer(200, { response: `You said: *${prompt}*` })(req, res);
  });
  await t.startWorker();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await agents?.close();
  await t?.close();
});

const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
  t.orm.em.fork().getConnection().execute<T[]>(query, params);

it('edits the profile, issues an API key, and manages an agent: sandbox prompt, new secret, deactivate', async () => {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  const taken = await register(t.app);
  const username = await signUpInBrowser(page, base);
  await page.click(`header a[href="/account"]`);
  await page.waitForURL(`${base}/account`);
  expect(await page.locator('main').innerText()).toContain('No agents yet');

  // A taken username is refused on the form, which keeps what was typed; a good edit is saved.
  await page.fill('input[name=username]', taken.username);
  await page.fill('input[name=display_name]', 'Ada L.');
  await page.click('#profile button[type=submit]');
  expect(await page.locator('[role=alert]').innerText()).toBe(`username ${taken.username} is already taken`);
  expect(await page.inputValue('input[name=display_name]')).toBe('Ada L.');
  await page.fill('input[name=username]', username);
  await page.fill('textarea[name=bio]', 'Builds careful agents.');
  await page.click('#profile button[type=submit]');
  await page.waitForURL(`${base}/account?done=saved`);
  expect(await page.locator('[role=status]').innerText()).toBe('Profile saved.');
  const [me] = await sql<{ id: number; display_name: string; bio: string }>(
    `select id, display_name, bio from users where username = ?`,
    [username],
  );
  expect(me).toMatchObject({ display_name: 'Ada L.', bio: 'Builds careful agents.' });

  // An API key for this person, shown once, and it works on the API as the same account.
  const keyResponse = page.waitForResponse((res) => res.url() === `${base}/account/api-key`);
  await page.click('form[action="/account/api-key"] button');
  expect((await keyResponse).headers()['cache-control']).toBe('no-store');
  const apiKey = (await page.locator('#secret').innerText()).trim();
  expect(apiKey).toMatch(/^arena_[A-Za-z0-9_-]{43}$/);
  await screenshot(page, 'account-api-key');
  const auth = { authorization: `Bearer ${apiKey}` };
  expect((await t.app.inject({ method: 'GET', url: '/api/account', headers: auth })).json().username).toBe(username);
  const [stored] = await sql<{ n: number }>(
    `select count(*)::int as n from api_keys where key_hash = ? and user_id = ?`,
    [hashToken(apiKey), me!.id],
  );
  expect(stored!.n).toBe(1);

  // An agent registered with that key shows up on the account page.
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: auth,
    payload: { name: 'careful-bot', webhook_url: agents.url },
  });
  expect(created.json().active).toBe(true);
  const { id: agentId, webhook_secret: firstSecret } = created.json();
  await page.goto(`${base}/account`);
  const card = page.locator(`#agent-${agentId}`);
  expect(await card.locator('h3').innerText()).toContain('careful-bot');
  expect(await card.locator('.meta').innerText()).toContain('active');
  // No vote has rated it yet: no tier beside its name.
  expect(await card.locator('h3 .tier').count()).toBe(0);
  await screenshot(page, 'account-agents');

  // A sandbox prompt: the task page follows it until the answer arrives.
  await card.locator('textarea[name=prompt]').fill('hello sandbox');
  await card.locator('form.sandbox button').click();
  await page.waitForURL(new RegExp(`/account/agents/${agentId}/sandbox/sandbox-\\d+$`));
  await page.locator('#task[data-status=answered]').waitFor();
  expect(await page.locator('.answer em').innerText()).toBe('hello sandbox');
  await screenshot(page, 'account-sandbox-task');
  const feed = (await t.app.inject({ method: 'GET', url: `/api/agents/${agentId}/activity` })).json();
  expect(feed.sessions.find((s: { kind: string }) => s.kind === 'sandbox')).toMatchObject({
    prompt: 'hello sandbox',
    status: 'answered',
  });

  // A new secret: shown once, and the old one stops working at once.
  await page.goto(`${base}/account`);
  await card.locator('form[action$="/secret"] button').click();
  const secret = (await page.locator('#secret').innerText()).trim();
  expect(secret).toMatch(/^agsec_/);
  expect(secret).not.toBe(firstSecret);
  const [agentRow] = await sql<{ secret_hash: string }>(`select secret_hash from agents where id = ?`, [agentId]);
  expect(agentRow!.secret_hash).toBe(hashToken(secret));

  // Deactivation needs the confirmation box, and is then permanent.
  await page.goto(`${base}/account`);
  // The box says what it confirms, beside the button it unlocks.
  expect(await card.locator('form[action$="/deactivate"] label').innerText()).toMatch(
    /^\s*I know it cannot be undone$/,
  );
  await card.locator('input[name=confirm]').check();
  await card.locator('form[action$="/deactivate"] button').click();
  await page.waitForURL(`${base}/account?done=deactivated`);
  expect(await card.locator('.meta').innerText()).toContain('deactivated');
  // Only its public owner name can still change: the page of a deactivated agent still shows it.
  expect(await card.locator('form').evaluateAll((forms) => forms.map((f) => f.className))).toEqual(['owner-handle']);
  expect((await t.app.inject({ method: 'GET', url: `/api/agents/${agentId}`, headers: auth })).json().active).toBe(
    false,
  );
  await page.close();
});

describe('account and judging pages refuse what they must', () => {
  let owner: WebClient;
  let stranger: WebClient;
  let agentId: number;

  beforeAll(async () => {
    owner = new WebClient(t.app);
    await owner.signUp(`owner${Date.now() % 100000}`);
    const key = await owner.submit('/account/api-key', {});
    const apiKey = /id="secret">([^<]+)</.exec(key.body)![1]!;
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: { authorization: `Bearer ${apiKey}` },
      payload: { name: 'owned', mode: 'pull' },
    });
    agentId = created.json().id;
    stranger = new WebClient(t.app);
    await stranger.signUp(`stranger${Date.now() % 100000}`);
  });

  it('sends people who are not signed in to the sign-in page, and programs get 401', async () => {
    const anonymous = new WebClient(t.app);
    for (const url of ['/account', '/judge', '/battle', '/battle/1', `/account/agents/${agentId}/sandbox/sandbox-1`]) {
      const res = await anonymous.request({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`/login?next=${encodeURIComponent(url)}`);
    }
    const post = await anonymous.request({
      method: 'POST',
      url: `/account/agents/${agentId}/deactivate`,
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'confirm=yes',
    });
    expect([post.statusCode, post.headers.location]).toEqual([303, '/login']);
    const program = await t.app.inject({ method: 'GET', url: '/account', headers: { accept: 'application/json' } });
    expect(program.statusCode).toBe(401);
  });

  it("answers 404 for another person's agent or task, and changes nothing", async () => {
    for (const action of ['secret', 'deactivate', 'sandbox']) {
      const res = await stranger.submit(`/account/agents/${agentId}/${action}`, { confirm: 'yes', prompt: 'hi' });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('agent not found');
    }
    for (const url of [
      `/account/agents/${agentId}/sandbox/sandbox-1`,
      '/account/agents/abc/sandbox/sandbox-1',
      `/account/agents/${agentId}/sandbox/not-an-id`,
    ]) {
      expect((await stranger.request({ method: 'GET', url })).statusCode).toBe(404);
    }
    const [row] = await sql<{ deactivated: boolean }>(`select deactivated from agents where id = ?`, [agentId]);
    expect(row!.deactivated).toBe(false);
  });

  it('refuses forms without a valid CSRF token, and deactivation without its confirmation', async () => {
    const forged = await owner.submit(`/account/agents/${agentId}/deactivate`, { confirm: 'yes', _csrf: 'forged' });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('Invalid csrf token');
    const missing = await owner.submit('/account/api-key', {}, false);
    expect(missing.statusCode).toBe(403);
    const unconfirmed = await owner.submit(`/account/agents/${agentId}/deactivate`, {});
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.body).toContain('tick the box to confirm');
    // A token made for another person's session is refused too.
    const othersToken = await stranger.csrf();
    expect((await owner.submit('/account/api-key', { _csrf: othersToken })).statusCode).toBe(403);
    const [row] = await sql<{ deactivated: boolean; keys: number }>(
      `select a.deactivated, (select count(*)::int from api_keys k where k.user_id = a.owner_id) as keys from agents a where a.id = ?`,
      [agentId],
    );
    expect(row).toEqual({ deactivated: false, keys: 1 });
  });

  it('shows form errors with their status: a bad username, an empty sandbox prompt, an invalid vote', async () => {
    const bad = await owner.submit('/account/profile', { username: 'no spaces allowed', display_name: '', bio: '' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('username must be');
    const long = await owner.submit('/account/profile', {
      username: 'fine-name',
      display_name: 'x'.repeat(101),
      bio: '',
    });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('display_name must be at most 100 characters');
    const empty = await owner.submit(`/account/agents/${agentId}/sandbox`, { prompt: '   ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('prompt must not be empty');
    const vote = await owner.submit('/battle/1/vote', { winner: 'c' });
    expect(vote.statusCode).toBe(400);
    const battle = await owner.submit('/battle', { prompt: '' });
    expect(battle.statusCode).toBe(400);
    expect(battle.body).toContain('prompt must not be empty');
    // No eligible agents of two other owners: the form says so and keeps the prompt.
    const lonely = await owner.submit('/battle', { prompt: 'Is anyone there?' });
    expect(lonely.statusCode).toBe(409);
    expect(lonely.body).toContain('a live battle needs two eligible agents');
    expect(lonely.body).toContain('Is anyone there?');
    const [row] = await sql<{ username: string; n: number }>(
      `select u.username, (select count(*)::int from battles b where b.judge_id = u.id) as n from users u join agents a on a.owner_id = u.id where a.id = ?`,
      [agentId],
    );
    expect(row!.username).toMatch(/^owner/);
    expect(row!.n).toBe(0);
  });

  it("keeps other people's battles private (404), and judges see an empty queue plainly", async () => {
    const res = await stranger.request({ method: 'GET', url: '/judge', headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Nothing is left for you to judge right now');
    const markdown = await stranger.request({ method: 'GET', url: '/judge', headers: { accept: 'text/markdown' } });
    expect(markdown.headers['content-type']).toBe('text/markdown; charset=utf-8');
    for (const url of ['/battle/999999', '/battle/abc'])
      expect((await stranger.request({ method: 'GET', url })).statusCode).toBe(404);
    expect((await stranger.submit('/battle/999999/vote', { winner: 'a' })).statusCode).toBe(404);
  });
});
