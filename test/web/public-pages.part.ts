import type { Browser } from 'playwright-core';
import { startArena, type Arena } from '../arena/support';
import { launchBrowser, screenshot } from './browser';

let arena: Arena;
let browser: Browser;
let base: string;

beforeAll(async () => {
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0' });
  await arena.dispatch();
  await arena.dispatch();
  // One vote, so the leaderboard has rows.
  await arena.voteOnceAndRefresh();
  // Enough feed entries for two pages, one of them hostile.
  const agent = arena.agents[0]!;
  await arena.sql(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, response, latency_ms, created_at)
     select ?, 'sandbox', (select min(id) from prompts), 'push', 'sandbox', 60, 'answered',
       case when g = 25 then '<img src=x onerror="window.pwned=1"> **bold** and a trace:' || chr(10) || '~~~thinking' || chr(10) || 'step one' || chr(10) || '~~~' else 'answer ' || g end,
       10 + g, now() + g * interval '1 second'
     from generate_series(1, 25) g`,
    [agent.id],
  );
  base = await arena.t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await arena.close();
});

it('shows the leaderboard with ratings, intervals drawn as error bars, and tiers', async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await screenshot(page, 'leaderboard');
  const rows = page.locator('tbody tr');
  expect(await rows.count()).toBe(2);
  expect(await page.locator('tbody').innerText()).toMatch(/agent-\d/);
  expect(await page.locator('tbody').innerText()).toMatch(/Specialist/);
  expect(await page.locator('svg[role="img"]').count()).toBeGreaterThan(0);
  await page.close();
});

it('switches to a category board and to the view controlled for style, which says what each style feature is worth', async () => {
  const [voted] = await arena.sql<{ category: string }>(`select category from public_votes limit 1`);
  const category = voted!.category;
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  const boards = page.getByRole('navigation', { name: 'Boards' });
  expect(await boards.getByRole('link', { name: 'All', exact: true }).getAttribute('aria-current')).toBe('page');
  expect(await boards.getByRole('link').allInnerTexts()).toEqual(expect.arrayContaining(['All', category]));
  expect(await boards.getByRole('link').allInnerTexts()).not.toContain('live');
  await boards.getByRole('link', { name: category, exact: true }).click();
  await page.waitForURL(`${base}/?category=${category}`);
  expect(await page.locator('h1').innerText()).toBe(`Leaderboard: ${category}`);
  expect(await page.locator('tbody tr').count()).toBe(2);
  // One vote there: the board says it is too early to rank rather than ranking noise.
  expect(await page.locator('p[role=status]').innerText()).toMatch(/too uncertain to rank/);

  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Controlled for style' }).click();
  await page.waitForURL(`${base}/?category=${category}&style_control=true`);
  await screenshot(page, 'leaderboard-category-controlled');
  const effects = page.locator('table').nth(1);
  expect(await effects.locator('tbody tr td:first-child').allInnerTexts()).toEqual([
    'Length',
    'Headers',
    'List items',
    'Bold',
    'Left side',
  ]);
  // One vote: no difference in length varies across votes yet, so the page does not pretend to measure it.
  expect(await effects.locator('tbody tr').first().innerText()).toMatch(
    /Not measured yet: too few votes whose answers differ in length\.$/,
  );
  // A category the arena does not have is a page saying which it has, as the API says it.
  const unknown = await page.goto(`${base}/?category=poetry`);
  expect(unknown!.status()).toBe(400);
  expect(await page.locator('main').innerText()).toMatch(/category must be one of .*math.*; "poetry" is not/);
  await page.goBack();
  // Choosing another board keeps the view.
  await page.getByRole('navigation', { name: 'Boards' }).getByRole('link', { name: 'All', exact: true }).click();
  await page.waitForURL(`${base}/?style_control=true`);
  expect(await page.locator('h1').innerText()).toBe('Leaderboard');
  await page.close();
});

it('shows an agent profile with its Elo chart and a paged, safely rendered feed', async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/agents/${arena.agents[0]!.id}`);
  await screenshot(page, 'agent-profile');
  expect(await page.locator('h1').innerText()).toContain('agent-0');
  expect(await page.locator('svg[role="img"]').count()).toBe(1);
  expect(await page.locator('article.session').count()).toBe(20);
  // The hostile answer is text, not an element; the trace is collapsible.
  expect(await page.evaluate('window.pwned')).toBeUndefined();
  expect(await page.locator('.answer img').count()).toBe(0);
  expect(await page.locator('.answer strong').first().innerText()).toBe('bold');
  expect(await page.locator('details.trace summary').first().innerText()).toBe('thinking');
  await page.getByRole('link', { name: 'Older' }).click();
  await page.waitForURL(/page=2/);
  await screenshot(page, 'agent-profile-page-2');
  expect(await page.locator('article.session').count()).toBeGreaterThan(0);
  expect(await page.getByRole('link', { name: 'Newer' }).count()).toBe(1);
  await page.close();
});

it('finds users and shows their profile, and fits a phone screen', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
  await page.goto(`${base}/users`);
  await page.fill('input[name=q]', arena.owners[1]!.username);
  await page.click('button[type=submit]');
  await page.waitForURL(/q=/);
  await screenshot(page, 'users-search');
  await page.getByRole('link', { name: arena.owners[1]!.username }).click();
  await page.waitForURL(/\/users\/\d+$/);
  await screenshot(page, 'user-profile');
  expect(await page.locator('main li a').innerText()).toBe('agent-1');
  await page.goto(`${base}/agents/${arena.agents[0]!.id}`);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  expect(overflow).toBeLessThanOrEqual(0);
  await page.close();
});

it("shows a tier only once a vote has rated the agent: a new agent's page and its owner's page show none", async () => {
  const owner = arena.owners[0]!;
  const fresh = (
    await arena.t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'unrated', webhook_url: arena.server.url },
    })
  ).json();
  const page = await browser.newPage();
  await page.goto(`${base}/agents/${fresh.id}`);
  expect(await page.locator('h1 .tier').count()).toBe(0);
  expect(await page.locator('svg[role="img"]').textContent()).toContain('No votes yet');
  // The voted agent keeps its tier.
  await page.goto(`${base}/agents/${arena.agents[0]!.id}`);
  expect(await page.locator('h1 .tier').innerText()).toMatch(/^(Contender|Specialist)$/);
  await page.goto(`${base}/users/${owner.userId}`);
  expect(await page.locator('main li', { hasText: 'unrated' }).locator('.tier').count()).toBe(0);
  expect(await page.locator('main li', { hasText: 'agent-0' }).locator('.tier').count()).toBe(1);
  await page.close();
  const markdown = await arena.t.app.inject({
    method: 'GET',
    url: `/agents/${fresh.id}`,
    headers: { accept: 'text/markdown' },
  });
  expect(markdown.body).toContain('Elo 1500 (no votes yet)');
});

it('leads from the docs back to the arena', async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/docs/guides/quick-start`);
  await page.getByRole('link', { name: 'Back to the arena' }).click();
  await page.waitForURL(`${base}/`);
  // The leaderboard, with its two agents.
  expect(await page.locator('tbody tr').count()).toBe(2);
  await page.close();
});

it('answers Accept: text/markdown on every public page, and 404s unknown ids', async () => {
  for (const path of ['/', `/agents/${arena.agents[0]!.id}`, '/users', `/users/${arena.owners[0]!.userId}`]) {
    const res = await arena.t.app.inject({ method: 'GET', url: path, headers: { accept: 'text/markdown' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.body).toMatch(/^# /);
  }
  const html = await arena.t.app.inject({ method: 'GET', url: '/agents/999999999' });
  expect(html.statusCode).toBe(404);
  expect(html.headers['content-type']).toMatch(/^text\/html/);
  expect((await arena.t.app.inject({ method: 'GET', url: '/agents/abc' })).statusCode).toBe(404);
});

it('sends /leaderboard to the board at the root, with its query', async () => {
  const plain = await arena.t.app.inject({ method: 'GET', url: '/leaderboard' });
  expect(plain.statusCode).toBe(301);
  expect(plain.headers.location).toBe('/');
  const board = await arena.t.app.inject({ method: 'GET', url: '/leaderboard?category=live&style_control=true' });
  expect(board.statusCode).toBe(301);
  expect(board.headers.location).toBe('/?category=live&style_control=true');
});
