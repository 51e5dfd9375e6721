/**
 * The pages as a newcomer reads them, in Chromium: prompts and answers keep their lines, and no
 * page scrolls sideways on a phone.
 */
import type { Browser, Page } from 'playwright-core';
import { startArena, type Arena } from '../arena/support';
import { launchBrowser, screenshot } from './browser';
import { signUpInBrowser } from './support';
import { register } from '../support/test-app';
import { until } from '../support/wait';

let arena: Arena;
let browser: Browser;
let base: string;

const DOCKERFILE = 'Review this Dockerfile:\nFROM node:latest\nCOPY . /app\nWORKDIR /app\nRUN npm install';

beforeAll(async () => {
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0', ARENA_PUBLIC_URL: 'http://127.0.0.1' });
  // Every arena prompt is the Dockerfile review, so the pair a judge is handed shows it.
  await arena.sql(`update prompts set text = ?`, [DOCKERFILE]);
  for (let i = 0; i < 3; i++) await arena.dispatch();
  const [first] = arena.agents;
  await arena.sql(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, response, latency_ms, created_at, completed_at)
     select ?, 'gym', (select min(id) from prompts), 'push', 'gym', 60, 'answered', ?, 12, now(), now()`,
    [first!.id, 'red\nyellow\nblue'],
  );
  base = await arena.t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await arena.close();
});

async function opened(url: string, width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${base}${url}`);
  return page;
}

describe('prompts and answers keep their lines', () => {
  it("on an agent's page", async () => {
    const page = await opened(`/agents/${arena.agents[0]!.id}`);
    try {
      const answer = page.locator('.answer', { hasText: 'yellow' }).first();
      expect(await answer.innerText()).toBe('red\nyellow\nblue');
      await screenshot(page, 'agent-answer-lines');
    } finally {
      await page.close();
    }
  });

  it("on the judge's page", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
    try {
      await signUpInBrowser(page, base);
      await page.goto(`${base}/judge`);
      const prompt = page.locator('.prompt .answer');
      expect(await prompt.innerText()).toBe(DOCKERFILE);
      await screenshot(page, 'judge-prompt-lines');
    } finally {
      await page.close();
    }
  });
});

describe('an account made with POST /api/register', () => {
  it('signs in at /login once it has an email and a password, and reaches its account page', async () => {
    const owner = await register(arena.t.app);
    const email = `api-owner${owner.userId}@example.org`;
    const inject = (method: 'PATCH' | 'PUT', url: string, payload: object) =>
      arena.t.app.inject({ method, url, headers: owner.auth, payload });
    expect((await inject('PATCH', '/api/account', { email })).statusCode).toBe(200);
    expect((await inject('PUT', '/api/account/password', { password: 'a long enough password' })).statusCode).toBe(200);

    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    page.setDefaultTimeout(10_000);
    try {
      await page.goto(`${base}/login`);
      await page.fill('input[name=email]', email);
      await page.fill('input[name=password]', 'a long enough password');
      await page.click('form.card button[type=submit]');
      await page.waitForURL(`${base}/`);
      await page.goto(`${base}/account`);
      expect(await page.locator('main').innerText()).toContain(`signed in as ${email}`);
      expect(await page.locator('input[name=username]').inputValue()).toBe(owner.username);
      await screenshot(page, 'api-account-signed-in-390');
    } finally {
      await page.close();
    }
  });
});

describe("a prompt typed in the site's textarea", () => {
  it("reaches the agents with the line breaks typed, not the browser's CRLF", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
    try {
      await signUpInBrowser(page, base);
      await page.goto(`${base}/battle`);
      await page.fill('textarea[name=prompt]', 'line one\nline two\n\nline four');
      await page.click('form.card button[type=submit]');
      await page.waitForURL(/\/battle\/\d+$/);
      const battleId = Number(page.url().split('/').pop());
      const [row] = await arena.sql<{ text: string }>(
        `select p.text from battles b join prompts p on p.id = b.prompt_id where b.id = ?`,
        [battleId],
      );
      expect(row!.text).toBe('line one\nline two\n\nline four');
      // Both agents got it as typed.
      const sent = () => arena.server.received.filter((r) => r.body.includes('line one'));
      await until(async () => sent().length === 2);
      for (const request of sent()) expect(JSON.parse(request.body).prompt).toBe('line one\nline two\n\nline four');
    } finally {
      await page.close();
    }
  });
});
