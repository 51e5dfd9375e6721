/**
 * Every page fits a phone: at 390 px nothing scrolls sideways, chart text stays legible, and agent
 * names wrap between words, not inside them. Screenshots at 390 and 1280 px of the pages changed.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startArena, type Arena } from '../arena/support';
import { launchBrowser, screenshot } from './browser';

// The callbacks given to page.evaluate run in the page, whose globals these are (the project's
// TypeScript has no DOM library).
declare const document: any;
declare const window: any;
declare const getComputedStyle: any;

let arena: Arena;
let browser: Browser;
let base: string;
let ownerEmail: string;

beforeAll(async () => {
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0', ARENA_PUBLIC_URL: 'http://127.0.0.1' });
  for (let i = 0; i < 3; i++) await arena.dispatch();
  await arena.voteOnceAndRefresh();
  const [first] = arena.agents;
  // A coding record, so the agent's page has its per-task table.
  const [prompt] = await arena.sql<{ id: number }>(
    `insert into prompts (source, category, text, created_at) values ('sandbox', 'swe', 'task', now()) returning id`,
  );
  for (const task of ['javascript/query-string', 'python/leap-year']) {
    const [session] = await arena.sql<{ id: number }>(
      `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, response, latency_ms, created_at, completed_at)
       values (?, 'sandbox', ?, 'push', 'swe', 600, 'passed', 'done', 41000, now() - interval '41 seconds', now()) returning id`,
      [first!.id, prompt!.id],
    );
    await arena.sql(
      `insert into coding_sessions (session_id, task_id, token_nonce, max_steps, tests_passed, tests_total, expires_at, ended_at)
       values (?, ?, 'n', 10, 8, 8, now(), now())`,
      [session!.id, task],
    );
  }
  // A long name of wide words: the charts shorten it, and must still show it whole.
  await arena.t.app.inject({
    method: 'PATCH',
    url: `/api/agents/${first!.id}`,
    headers: first!.owner.auth,
    payload: { name: 'MMLU Maximum Wisdom Worker Agent' },
  });
  // A name of one long word, as people choose them.
  const [, second] = arena.agents;
  await arena.t.app.inject({
    method: 'PATCH',
    url: `/api/agents/${second!.id}`,
    headers: second!.owner.auth,
    payload: { name: 'deepresponder' },
  });
  const owner = first!.owner;
  ownerEmail = `phone-owner${owner.userId}@example.org`;
  await arena.t.app.inject({
    method: 'PATCH',
    url: '/api/account',
    headers: owner.auth,
    payload: { email: ownerEmail },
  });
  await arena.t.app.inject({
    method: 'PUT',
    url: '/api/account/password',
    headers: owner.auth,
    payload: { password: 'a long enough password' },
  });
  base = await arena.t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  for (const context of contexts.values()) await context.close();
  await browser?.close();
  await arena.close();
});

const contexts = new Map<number, BrowserContext>();

/** A page of the owner's, signed in once per width (sign-ins are rate limited per address). */
async function signedIn(width: number): Promise<Page> {
  let context = contexts.get(width);
  if (!context) {
    context = await browser.newContext({ viewport: { width, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.fill('input[name=email]', ownerEmail);
    await page.fill('input[name=password]', 'a long enough password');
    await page.click('form.card button[type=submit]');
    await page.waitForURL(`${base}/`);
    await page.close();
    contexts.set(width, context);
  }
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

/** `AGENT` stands for the first agent's id, known once the arena runs. */
const PAGES = ['/', '/account', '/downloads/', '/agents/AGENT', '/judge', '/battle', '/users', '/docs/'];

describe('at 390 px', () => {
  it.each(PAGES.map((p) => [p]))('%s does not scroll sideways', async (path) => {
    const page = await signedIn(390);
    try {
      await page.goto(`${base}${path.replace('AGENT', String(arena.agents[0]!.id))}`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
          .filter((el) => !el.closest('.table-wrap, .chart-wrap, pre'))
          .slice(0, 3)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
      );
      expect({ path, width, wide }).toEqual({ path, width: 390, wide: [] });
    } finally {
      await page.close();
    }
  });

  it("keeps the charts' text legible (at least 10 px) on the leaderboard and the agent's page", async () => {
    const page = await signedIn(390);
    try {
      for (const path of ['/', `/agents/${arena.agents[0]!.id}`]) {
        await page.goto(`${base}${path}`);
        const sizes = await page.evaluate(() =>
          [...document.querySelectorAll('svg text')].map((t) => t.getBoundingClientRect().height),
        );
        expect(sizes.length).toBeGreaterThan(0);
        expect({ path, smallest: Math.min(...sizes) >= 10 ? 'legible' : Math.min(...sizes) }).toEqual({
          path,
          smallest: 'legible',
        });
      }
    } finally {
      await page.close();
    }
  });

  it("cuts no chart label at the chart's edge, on the leaderboard and the agent's page", async () => {
    const page = await signedIn(1280);
    try {
      for (const path of ['/', `/agents/${arena.agents[0]!.id}`]) {
        await page.goto(`${base}${path}`);
        const cut = await page.evaluate(() =>
          [...document.querySelectorAll('svg text')]
            .map((text) => {
              const box = text.getBBox();
              const width = text.ownerSVGElement.viewBox.baseVal.width;
              return box.x < 0 || box.x + box.width > width ? text.textContent : null;
            })
            .filter((label) => label !== null),
        );
        expect({ path, cut }).toEqual({ path, cut: [] });
      }
    } finally {
      await page.close();
    }
  });

  it("hints that a chart or table cut by the screen's width scrolls sideways", async () => {
    const page = await signedIn(390);
    try {
      await page.goto(`${base}/agents/${arena.agents[0]!.id}`);
      const boxes = await page.evaluate(() =>
        [...document.querySelectorAll('.chart-wrap, .table-wrap')].map((box) => ({
          cut: box.scrollWidth > box.clientWidth,
          hint: (getComputedStyle(box).backgroundImage.match(/radial-gradient/g) ?? []).length,
        })),
      );
      // The Elo chart and the coding table are wider than the phone: each is cut, and hinted.
      expect(boxes.filter((box) => box.cut).length).toBeGreaterThanOrEqual(2);
      for (const box of boxes.filter((b) => b.cut)) expect(box.hint).toBe(2);
    } finally {
      await page.close();
    }
  });

  it('wraps agent names between words, never inside one', async () => {
    const page = await signedIn(390);
    try {
      await page.goto(`${base}/`);
      // Each name's text split where its lines break, read from the characters' positions.
      const lines = await page.evaluate(() =>
        [...document.querySelectorAll('td.name a')].map((a) => {
          const text = a.firstChild!;
          const content = text.textContent!;
          const parts: string[] = [];
          let top: number | undefined;
          for (let i = 0; i < content.length; i++) {
            const range = document.createRange();
            range.setStart(text, i);
            range.setEnd(text, i + 1);
            const y = range.getBoundingClientRect().top;
            if (top === undefined || Math.abs(y - top) > 2) parts.push('');
            top = y;
            parts[parts.length - 1] += content[i];
          }
          return parts;
        }),
      );
      expect(lines.length).toBe(2);
      // A line may end at a space or a hyphen; never between two letters or digits.
      for (const parts of lines)
        for (const part of parts.slice(0, -1))
          expect({ parts, ends: /[\s-]$/.test(part) }).toEqual({ parts, ends: true });
    } finally {
      await page.close();
    }
  });
});

it("keeps each number cell on one line at 1280 px: a rating with its interval, an agent's coding record", async () => {
  const page = await signedIn(1280);
  try {
    for (const path of ['/', `/agents/${arena.agents[0]!.id}`]) {
      await page.goto(`${base}${path}`);
      const cells: Array<{ text: string; lines: number }> = await page.evaluate(() =>
        [...document.querySelectorAll('td.num')].map((cell: any) => {
          const range = document.createRange();
          range.selectNodeContents(cell);
          const style = window.getComputedStyle(cell);
          const line = style.lineHeight === 'normal' ? 1.25 * parseFloat(style.fontSize) : parseFloat(style.lineHeight);
          return { text: cell.innerText, lines: Math.round(range.getBoundingClientRect().height / line) };
        }),
      );
      expect(cells.length).toBeGreaterThan(0);
      expect(cells.filter((c) => c.lines > 1)).toEqual([]);
    }
  } finally {
    await page.close();
  }
});

it('colours a coding session passed as an answer and failed as an error', async () => {
  const [first] = arena.agents;
  const [prompt] = await arena.sql<{ id: number }>(`select id from prompts where source = 'sandbox' limit 1`);
  await arena.sql(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, response, latency_ms, created_at, completed_at)
     values (?, 'sandbox', ?, 'push', 'swe', 600, 'failed', 'done', 1000, now(), now())`,
    [first!.id, prompt!.id],
  );
  const page = await signedIn(1280);
  try {
    await page.goto(`${base}/agents/${first!.id}`);
    const colour = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((el: any) => window.getComputedStyle(el).color as string);
    const [answered, passed, failed, text] = await Promise.all([
      colour('.meta .status-answered'),
      colour('.meta .status-passed'),
      colour('.meta .status-failed'),
      colour('.meta'),
    ]);
    // Passed in the answers' colour; failed in a colour of its own, not the plain text's.
    expect(passed).toBe(answered);
    expect(failed).not.toBe(passed);
    expect(failed).not.toBe(text);
  } finally {
    await page.close();
  }
});

it('serves the changed pages at 390 and 1280 px (screenshots with TEST_SCREENSHOTS=1)', async () => {
  for (const width of [390, 1280]) {
    const page = await signedIn(width);
    try {
      for (const [name, path] of [
        ['account', '/account'],
        ['downloads', '/downloads/'],
        ['agent', `/agents/${arena.agents[0]!.id}`],
        ['leaderboard', '/'],
      ] as const) {
        const response = await page.goto(`${base}${path}`);
        expect({ name, status: response?.status() }).toEqual({ name, status: 200 });
        await screenshot(page, `phone-${name}-${width}`);
      }
    } finally {
      await page.close();
    }
  }
});
