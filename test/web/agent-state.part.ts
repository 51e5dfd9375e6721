/**
 * The owner's pages say what the API knows about an agent: online or not and when it was last seen,
 * what a pending answer waits for, Retest wherever the API allows one, and the reason beside every
 * action that is unavailable. In Chromium, at 1280 and 390 px.
 */
import type { Browser, Page } from 'playwright-core';
import { answer, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { launchBrowser, screenshot } from './browser';
import { signUpInBrowser } from './support';

// The callback given to page.evaluate runs in the page, whose global this is.
declare const document: any;

let t: TestApp;
let webhook: TestAgentServer;
let browser: Browser;
let base: string;
/** Whether the push agent's webhook answers: it fails until the test mends it. */
let healthy = false;

beforeAll(async () => {
  t = await startTestApp({ ARENA_PUBLIC_URL: 'http://127.0.0.1' }, { pastTheGym: false });
  webhook = await startAgentServer((req, res) =>
    healthy ? answer(200, { response: 'pong' })(req, res) : answer(503, { error: 'down for repairs' })(req, res),
  );
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await webhook?.close();
  await t?.close();
});

/** Signs up in the browser and takes an API key from the account page, for the API calls an agent's program makes. */
async function ownerInBrowser(page: Page): Promise<Record<string, string>> {
  await signUpInBrowser(page, base);
  await page.goto(`${base}/account`);
  await page.click('form[action="/account/api-key"] button');
  return { authorization: `Bearer ${(await page.locator('#secret').innerText()).trim()}` };
}

const createAgent = async (auth: Record<string, string>, payload: object) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: auth, payload });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: number; webhook_secret: string; active: boolean; run_command?: string };
};

it('shows presence, what a pending answer waits for, Retest, and why an action is unavailable', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  const auth = await ownerInBrowser(page);
  const puller = await createAgent(auth, { name: 'waiting-puller', mode: 'pull' });
  const pusher = await createAgent(auth, { name: 'flaky-pusher', webhook_url: webhook.url });
  expect(pusher.active).toBe(false);

  await page.goto(`${base}/account`);
  const pullCard = page.locator(`#agent-${puller.id}`);
  const pushCard = page.locator(`#agent-${pusher.id}`);
  // A pull agent no runner has polled for: offline, never seen, and how to start its runner.
  expect(await pullCard.locator('.meta').innerText()).toContain('pull · active · offline · last seen never');
  expect(await pullCard.locator('.presence-hint').innerText()).toMatch(
    /^No runner has polled for it yet: its prompts wait/,
  );
  await pullCard.locator('details.run-command summary').click();
  expect(await pullCard.locator('details.run-command code').first().innerText()).toBe(puller.run_command);
  expect(await pullCard.locator('form.retest').count()).toBe(0);
  // A push agent whose ping failed: Retest, and the reason beside every action it cannot take.
  expect(await pushCard.locator('.meta').innerText()).toMatch(/inactive: .*503.* · offline · last seen never/);
  // Its ping's error is on its state; what to do, once, above the actions it rules out.
  expect(await pushCard.locator('.presence-hint').count()).toBe(0);
  const send = pushCard.locator('form.sandbox button');
  expect(await send.isDisabled()).toBe(true);
  const reason = pushCard.locator(`#${await send.getAttribute('aria-describedby')}`);
  expect(await reason.isVisible()).toBe(true);
  expect(await reason.innerText()).toBe(
    'Prompts, coding sessions and benchmarks are unavailable while the agent is inactive: retest it once its endpoint answers.',
  );
  // One reason for the three actions, each pointing at it.
  for (const button of ['form.coding button', 'form.benchmark button'])
    expect(await pushCard.locator(button).getAttribute('aria-describedby')).toBe(`unavailable-${pusher.id}`);
  expect(await pushCard.locator('form.retest button').isVisible()).toBe(true);
  await screenshot(page, 'account-agent-state');

  // A retest while the webhook still fails says so, and changes nothing.
  await pushCard.locator('form.retest button').click();
  await page.waitForURL(`${base}/account?done=retest-failed#agent-${pusher.id}`);
  expect(await page.locator('[role=status]').innerText()).toBe(
    'Retest failed: the agent stays inactive. Its card says why.',
  );

  // A sandbox prompt to the pull agent waits for a runner, and its page says so rather than "0 ms".
  await pullCard.locator('textarea[name=prompt]').fill('anyone there?');
  await pullCard.locator('form.sandbox button').click();
  await page.waitForURL(new RegExp(`/account/agents/${puller.id}/sandbox/sandbox-\\d+$`));
  expect(await page.locator('.waiting').innerText()).toBe(
    'Waiting for a runner: none has polled for this agent in the last minute, so the prompt waits until one does or its deadline passes.',
  );
  await page.goto(`${base}/agents/${puller.id}`);
  expect(await page.locator('dl.facts').innerText()).toContain('offline · last seen never');
  const pending = page.locator('article.session .meta').first();
  expect(await pending.innerText()).toContain('Waiting for a runner');
  expect(await pending.innerText()).not.toContain(' ms');
  // Anyone else reads only that it waits: whether a runner polls is its owner's to know, as in the API.
  const publicPage = (
    await t.app.inject({ method: 'GET', url: `/agents/${puller.id}`, headers: { accept: 'text/html' } })
  ).body;
  expect(publicPage).not.toContain('last seen');
  expect(publicPage).not.toContain('Waiting for a runner');

  // Its runner polls: online, seen just now, and the hint is gone. (No worker runs here, so the
  // prompt's workflow never queues its work: the poll finds none.)
  const poll = await t.app.inject({
    method: 'GET',
    url: `/api/agents/${puller.id}/work/next?wait=0`,
    headers: { 'x-arena-secret': puller.webhook_secret },
  });
  expect(poll.statusCode).toBe(204);
  await page.goto(`${base}/account`);
  expect(await pullCard.locator('.meta').innerText()).toContain('pull · active · online · last seen just now');
  expect(await pullCard.locator('.presence-hint').count()).toBe(0);

  // The webhook mended, Retest makes the push agent active and online, and its actions available.
  healthy = true;
  await pushCard.locator('form.retest button').click();
  await page.waitForURL(`${base}/account?done=retest-passed#agent-${pusher.id}`);
  expect(await page.locator('[role=status]').innerText()).toBe('Retest passed: the agent is active and online.');
  expect(await pushCard.locator('.meta').innerText()).toMatch(/push · active · online · last seen just now/);
  expect(await pushCard.locator('form.sandbox button').isDisabled()).toBe(false);
  expect(await pushCard.locator('.unavailable').count()).toBe(0);

  // At 390 px the same card fits: nothing scrolls sideways, Retest still in view.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/account`);
  await pullCard.locator('details.run-command summary').click();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await pushCard.locator('form.retest button').scrollIntoViewIfNeeded();
  expect(await pushCard.locator('form.retest button').isVisible()).toBe(true);
  await screenshot(page, 'account-agent-state-390');
  await page.close();
});

it("refuses a retest of a pull agent, or of another person's agent (404), and changes nothing", async () => {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  const auth = await ownerInBrowser(page);
  const puller = await createAgent(auth, { name: 'never-pinged', mode: 'pull' });
  const other = await browser.newPage();
  const otherAuth = await ownerInBrowser(other);
  const theirs = await createAgent(otherAuth, { name: 'not-yours', webhook_url: webhook.url });

  // No button is offered for either; a hand-made form gets the API's answers.
  const retest = (id: number) =>
    page.evaluate(async (path: string) => {
      const csrf = document.querySelector('input[name=_csrf]').value;
      const res = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `_csrf=${encodeURIComponent(csrf)}`,
      });
      return { status: res.status, text: await res.text() };
    }, `/account/agents/${id}/retest`);
  await page.goto(`${base}/account`);
  const pull = await retest(puller.id);
  expect(pull.status).toBe(409);
  expect(pull.text).toContain('never-pinged: retest applies to push and a2a agents only; pull agents are never pinged');
  const before = webhook.received.length;
  expect((await retest(theirs.id)).status).toBe(404);
  expect(webhook.received).toHaveLength(before);
  await other.close();
  await page.close();
});
