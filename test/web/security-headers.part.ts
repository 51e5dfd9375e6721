import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { answer } from '../support/agent-server';
import { startTestApp } from '../support/test-app';
import { startArena, type Arena } from '../arena/support';
import { launchBrowser } from './browser';
import { signUpInBrowser } from './support';

let arena: Arena;
let browser: Browser;
let base: string;

beforeAll(async () => {
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0', ARENA_PUBLIC_URL: 'http://127.0.0.1' });
  for (let i = 0; i < 3; i++) await arena.dispatch();
  await arena.voteOnceAndRefresh();
  base = await arena.t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await arena.close();
});

/** A Content-Security-Policy header as directive name -> its sources. */
function directives(header: string | string[] | number | undefined): Map<string, string[]> {
  expect(typeof header).toBe('string');
  return new Map(
    (header as string)
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name, ...sources]) => [name!.toLowerCase(), sources]),
  );
}

describe('every response', () => {
  it.each([
    ['a public page', '/'],
    ['a missing page', '/agents/999999999'],
    ['a page that wants a sign-in', '/account'],
    ['the sign-in page', '/login'],
    ['a stylesheet', '/static/site.css'],
    ['the icon', '/favicon.ico'],
    ['the docs', '/docs/'],
    ['the API reference', '/docs/reference/'],
    ['the OpenAPI document', '/openapi.json'],
    ['an API call', '/api/leaderboard'],
    ['an API error', '/api/agents/999999999'],
    ['an unknown path', '/no/such/thing'],
  ])('carries the security headers: %s (%s)', async (_what, url) => {
    const res = await arena.t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBeLessThan(500);
    expectSecurityHeaders(res.headers);
  });

  it("carries them on a long-poll's answer and on its refusals", async () => {
    const owner = arena.owners[0]!;
    const created = await arena.t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'headers-puller', mode: 'pull' },
    });
    const agent = created.json<{ id: number; webhook_secret: string }>();
    const poll = (secret: string) =>
      arena.t.app.inject({
        method: 'GET',
        url: `/api/agents/${agent.id}/work/next?wait=1`,
        headers: { 'x-arena-secret': secret },
      });
    // Its gym's first prompt, or nothing within the second: either way an answer after the wait began.
    const answered = await poll(agent.webhook_secret);
    expect([200, 204]).toContain(answered.statusCode);
    expectSecurityHeaders(answered.headers);
    const refused = await poll('not-the-secret');
    expect(refused.statusCode).toBe(403);
    expectSecurityHeaders(refused.headers);
    // Done with: a pull agent with no runner must not be drawn into the live battle below, where its
    // side would wait out the whole deadline (it was, one run in three, when left active).
    const deactivated = await arena.t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/deactivate`,
      headers: owner.auth,
    });
    expect(deactivated.statusCode).toBe(200);
  });
});

/** The headers every response carries, over plain http. */
function expectSecurityHeaders(headers: Record<string, string | string[] | number | undefined>): void {
  const csp = directives(headers['content-security-policy']);
  expect(csp.get('default-src')).toEqual(["'self'"]);
  expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  expect(csp.get('object-src')).toEqual(["'none'"]);
  expect(csp.get('base-uri')).toEqual(["'none'"]);
  expect(csp.get('script-src')).toEqual(["'self'"]);
  expect(csp.get('script-src-attr')).toEqual(["'none'"]);
  for (const directive of ['script-src', 'style-src', 'default-src']) {
    expect(csp.get(directive) ?? []).not.toContain("'unsafe-inline'");
    expect(csp.get(directive) ?? []).not.toContain("'unsafe-eval'");
  }
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  // Plain http: no HSTS, and no upgrading of requests to an https nobody serves.
  expect(headers['strict-transport-security']).toBeUndefined();
  expect(csp.has('upgrade-insecure-requests')).toBe(false);
}

it('asks browsers to keep to https for a year when the public address is https', async () => {
  const t = await startTestApp({ ARENA_PUBLIC_URL: 'https://arena.example' });
  try {
    for (const url of ['/', '/api/leaderboard']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
      expect(directives(res.headers['content-security-policy']).has('upgrade-insecure-requests')).toBe(true);
    }
  } finally {
    await t.close();
  }
});

it('cannot be framed by another site: /account in an iframe elsewhere stays empty', async () => {
  // Another origin (localhost is not 127.0.0.1 to a browser) that frames the account page.
  const attacker = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><title>win a prize</title><iframe id="victim" src="${base}/account" width="800" height="600"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  const page = await browser.newPage();
  try {
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors|X-Frame-Options/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
    await page.locator('#victim').waitFor();
    const victim = await (await page.$('#victim'))!.contentFrame();
    await victim!.waitForLoadState();
    expect(victim!.url()).not.toContain('127.0.0.1');
    expect(refused.length).toBeGreaterThan(0);
  } finally {
    await page.close();
    attacker.close();
  }
});

/** Opens pages and records every Content-Security-Policy violation and console error they cause. */
async function watchedPage(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  await context.exposeBinding('reportViolation', ({ frame }, text: string) => problems.push(`${frame.url()}: ${text}`));
  await context.addInitScript(`
    document.addEventListener('securitypolicyviolation', (event) => {
      window.reportViolation(event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline'));
    });
  `);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`${page.url()}: console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
  return { page, problems };
}

it('breaks nothing on the main pages under its policy: no violations, scripts and charts work', async () => {
  const { page, problems } = await watchedPage();
  const policed: string[] = [];
  page.on('response', (res) => {
    if (
      res.request().resourceType() === 'document' &&
      res.headers()['content-security-policy']?.includes("frame-ancestors 'none'")
    )
      policed.push(res.url());
  });
  await signUpInBrowser(page, base);
  const agentId = arena.agents[0]!.id;
  for (const path of [
    '/',
    `/agents/${agentId}`,
    '/users',
    `/users/${arena.owners[0]!.userId}`,
    '/judge',
    '/battle',
    '/account',
    '/docs/',
    '/docs/guides/quick-start',
  ]) {
    await page.goto(`${base}${path}`);
    expect(await page.locator('main h1').count()).toBeGreaterThan(0);
  }
  await page.goto(`${base}/agents/${agentId}`);
  expect(await page.locator('svg[aria-labelledby="elo-title"]').isVisible()).toBe(true);

  // The interactive API reference runs its own scripts from this server.
  await page.goto(`${base}/docs/reference/`);
  await page.locator('.swagger-ui .info .title').waitFor();
  await page.locator('.opblock').first().waitFor();

  // A live battle: the page's own script keeps it current until both answers are in.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  arena.server.behave((req, res) => {
    if (String(JSON.parse(req.body).prompt).includes('prime number') && req.url === '/agent-1')
      void held.then(() => answer(200, { response: 'late answer' })(req, res));
    else answer(200, { response: `answer from ${req.url}` })(req, res);
  });
  await page.goto(`${base}/battle`);
  await page.fill('textarea[name=prompt]', 'Name a prime number greater than 10.');
  await page.click('form.card button[type=submit]');
  await page.waitForURL(/\/battle\/\d+$/);
  const battleId = Number(/\/battle\/(\d+)$/.exec(page.url())![1]);
  // Both sides wait; once both answers are in they appear together, without a reload.
  expect(await page.locator('.waiting').count()).toBe(2);
  release();
  // The battle is open for judging once its workflow says so; from then on the page's script has
  // its one-second polls to show it.
  expect(await arena.client.workflow.getHandle(`battle-${battleId}`).result()).toBe('open');
  await page.locator('form.vote').waitFor({ timeout: 10_000 });
  await page.locator('.side .answer', { hasText: 'answer from /agent-0' }).waitFor();
  arena.server.behave(answer());

  expect(problems).toEqual([]);
  expect(policed.length).toBeGreaterThanOrEqual(13);
  await page.context().close();
});
