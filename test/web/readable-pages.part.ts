import MarkdownIt from 'markdown-it';
import type { Browser, Page } from 'playwright-core';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { startArena, type Arena } from '../arena/support';
import { launchBrowser, screenshot } from './browser';

let arena: Arena;
let browser: Browser;
let base: string;

// The API's own timestamp format, which pages for people should not show as it is.
const RAW_TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}/;
const EXACT_TITLE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;

beforeAll(async () => {
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0' });
  await arena.dispatch();
  await arena.dispatch();
  await arena.voteOnceAndRefresh();
  // A name as long as people give them, and parentheses as people write them.
  const [first, second] = arena.agents;
  await arena.t.app.inject({
    method: 'PATCH',
    url: `/api/agents/${first!.id}`,
    headers: first!.owner.auth,
    payload: { name: 'careful-bot (v2)', description: 'Answers carefully (second try), with [sources].' },
  });
  await arena.t.app.inject({
    method: 'PATCH',
    url: `/api/agents/${second!.id}`,
    headers: second!.owner.auth,
    payload: { name: 'AnAgentWithARatherLongNameAndNoBreaksV3' },
  });
  // An older exchange, so the feed has a time that is not "just now".
  await arena.sql(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, response, latency_ms, created_at)
     select ?, 'sandbox', (select min(id) from prompts), 'push', 'sandbox', 60, 'answered', 'an old answer', 12, now() - interval '3 days'`,
    [first!.id],
  );
  base = await arena.t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await arena.close();
});

const markdown = async (url: string) =>
  (await arena.t.app.inject({ method: 'GET', url, headers: { accept: 'text/markdown' } })).body;
const html = async (url: string) =>
  (await arena.t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } })).body;

/** Loads a page and collects every response that failed, the icon the browser asks for included. */
async function visit(page: Page, url: string): Promise<string[]> {
  const failed: string[] = [];
  page.on('response', (res) => {
    if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
  });
  await page.goto(url);
  return failed;
}

describe('the icon', () => {
  it('is served at /favicon.ico, and every page links an icon that answers', async () => {
    const icon = await arena.t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/x-icon');
    // An ICO file: reserved 0, type 1.
    expect([...icon.rawPayload.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(icon.headers['cache-control']).toMatch(/max-age=\d+/);

    const page = await html('/');
    const links = [...page.matchAll(/<link rel="icon"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    for (const href of links) {
      const res = await arena.t.app.inject({ method: 'GET', url: href });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^image\//);
    }
  });
});

describe('on a phone', () => {
  it('fits the leaderboard on the screen: the table folds, so its last column shows without scrolling', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    expect(await visit(page, `${base}/`)).toEqual([]);
    await screenshot(page, 'leaderboard-phone');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(
      0,
    );
    const wrap = page.locator('.table-wrap');
    expect(await wrap.evaluate((box) => box.scrollWidth - box.clientWidth)).toBeLessThanOrEqual(0);
    const lastColumn = [
      page.locator('table thead th').last(),
      ...(await page.locator('table tbody tr td:last-child').all()),
    ];
    expect(await lastColumn[0]!.innerText()).toBe('Votes');
    for (const cell of lastColumn) {
      expect(await cell.isVisible()).toBe(true);
      const box = (await cell.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await page.close();
  });
});

describe('Markdown renditions', () => {
  it('keep plain parentheses as they are on a profile, and escape only what Markdown would read as syntax', async () => {
    const body = await markdown(`/agents/${arena.agents[0]!.id}`);
    expect(body).toMatch(/^# careful-bot \(v2\)$/m);
    expect(body).toContain('Answers carefully (second try), with \\[sources\\].');
    expect(body).not.toContain('\\(');
    const board = await markdown('/');
    expect(board).toContain('[careful-bot (v2)](');
  });

  it('show a prompt and an answer with their own lines and Markdown, inert, and the HTML page as before', async () => {
    const [agent] = arena.agents;
    const prompt =
      '# Leap years\n\nWrite `is_leap` in `calendar_utils.py`:\n\n- 1900 is not\n- 2000 is\n\nThen *test* it.';
    const task = (
      await arena.t.app.inject({
        method: 'POST',
        url: `/api/agents/${agent!.id}/sandbox`,
        headers: agent!.owner.auth,
        payload: { prompt, deadline_seconds: 30 },
      })
    ).json();
    const sessionId = Number(task.id.split('-')[1]);
    await arena.client.workflow.getHandle(deliveryWorkflowId(sessionId)).result();
    // An answer that tries to leave its block: a longer fence of its own, raw HTML, and one very long line.
    const answer = `Here:\n\n\`\`\`\`\npython\n\`\`\`\`\n\n</pre><script>alert(1)</script><img src=x onerror=alert(2)>\n${'x'.repeat(5000)}\n## Not a heading of the page`;
    await arena.sql(`update sessions set response = ? where id = ?`, [answer, sessionId]);

    const body = await markdown(`/agents/${agent!.id}`);
    const start = body.indexOf(`### ${task.id} `);
    const entry = body.slice(start, body.indexOf('\n### ', start + 1));
    expect(entry).toContain(`**Prompt:**\n\n\`\`\`text\n${prompt}\n\`\`\`\n`);
    expect(entry).toContain(`**Response:**\n\n\`\`\`\`\`text\n${answer}\n\`\`\`\`\`\n`);
    // Read as any Markdown reader would, raw HTML allowed: two code blocks holding the exact texts, and no element from them.
    const reader = new MarkdownIt('commonmark');
    const rendered = reader.render(entry);
    expect(rendered).not.toMatch(/<script|<img|<h2/);
    const blocks = [...rendered.matchAll(/<pre><code class="language-text">([\s\S]*?)<\/code><\/pre>/g)].map((m) =>
      m[1]!
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    );
    expect(blocks).toEqual([`${prompt}\n`, `${answer}\n`]);
    // The page for people renders the prompt's Markdown, as before.
    const page = await html(`/agents/${agent!.id}`);
    expect(page).toContain('<h1>Leap years</h1>');
    expect(page).toContain('<li>1900 is not</li>');
  });

  it('give times as a readable UTC time, not the API format', async () => {
    const profile = await markdown(`/agents/${arena.agents[0]!.id}`);
    expect(profile).not.toMatch(RAW_TIMESTAMP);
    expect(profile).toMatch(/^### sandbox-\d+ · .* · \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/m);
    expect(await markdown('/')).toMatch(/Updated \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
  });
});

describe('times on the pages', () => {
  it('read as people read them, with the exact time in the <time> element', async () => {
    for (const url of ['/', `/agents/${arena.agents[0]!.id}`, '/users', `/users/${arena.owners[0]!.userId}`]) {
      const body = await html(url);
      expect(body).not.toMatch(RAW_TIMESTAMP);
      expect(body).toMatch(
        /<time datetime="\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z" title="\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC">[^<]+<\/time>/,
      );
    }
    const page = await browser.newPage();
    await page.goto(`${base}/agents/${arena.agents[0]!.id}`);
    const feedTimes = await page.locator('article.session time').allInnerTexts();
    expect(feedTimes).toContain('3 days ago');
    expect(feedTimes.filter((t) => /^(just now|\d+ minutes? ago)$/.test(t)).length).toBeGreaterThan(0);
    expect(await page.locator('article.session time').first().getAttribute('title')).toMatch(EXACT_TITLE);
    await page.goto(`${base}/`);
    const updated = page.locator('p', { hasText: 'Updated' }).locator('time').first();
    expect(await updated.innerText()).toMatch(/^(just now|\d+ minutes? ago)$/);
    expect(await updated.getAttribute('title')).toMatch(EXACT_TITLE);
    await page.close();
  });

  it("label the Elo history chart's time axis", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/agents/${arena.agents[0]!.id}`);
    await screenshot(page, 'agent-elo-chart');
    const labels = await page.locator('svg[aria-labelledby="elo-title"] text').allTextContents();
    expect(labels.filter((l) => /^\d{2}:\d{2}$/.test(l)).length).toBeGreaterThanOrEqual(2);
    expect(labels).toContain('UTC');
    await page.close();
  });
});
