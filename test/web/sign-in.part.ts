import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app';
import { launchBrowser, screenshot } from './browser';

let t: TestApp;
let browser: Browser;
let base: string;

beforeAll(async () => {
  t = await startTestApp({ ARENA_PUBLIC_URL: 'http://127.0.0.1' });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t.close();
});

it('signs up, signs in on the page that follows, logs out, refuses a wrong password without saying which part was wrong, and logs in', async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/signup`);
  await page.fill('input[name=email]', 'Ada@Example.com');
  await page.fill('input[name=username]', 'ada');
  await page.fill('input[name=password]', 'correct horse battery');
  await screenshot(page, 'signup');
  await page.click('form.card button[type=submit]');
  // Sign-up answers alike for a new and a known email, so it never signs in by itself.
  expect(await page.locator('[role=status]').innerText()).toMatch(
    /^Thank you\. If this email is new, your account is ready/,
  );
  expect(await page.inputValue('input[name=email]')).toBe('Ada@Example.com');
  await screenshot(page, 'signed-up');
  await page.fill('input[name=password]', 'correct horse battery');
  await page.click('form.card button[type=submit]');
  await page.waitForURL(`${base}/`);
  expect(await page.locator('header').innerText()).toContain('ada');
  const [row] = await t.orm.em.getConnection().execute(`select email from users where username = 'ada'`);
  expect(row?.email).toBe('ada@example.com');

  await page.click('header button[type=submit]');
  await page.waitForURL(`${base}/`);
  expect(await page.locator('header').innerText()).toContain('Sign in');

  await page.goto(`${base}/login`);
  await page.fill('input[name=email]', 'ada@example.com');
  await page.fill('input[name=password]', 'wrong password!');
  await page.click('form.card button[type=submit]');
  expect(await page.locator('[role=alert]').innerText()).toBe('wrong email or password');
  await screenshot(page, 'login-wrong');
  await page.fill('input[name=password]', 'correct horse battery');
  await page.click('form.card button[type=submit]');
  await page.waitForURL(`${base}/`);
  expect(await page.locator('header').innerText()).toContain('ada');
  await page.close();
});

it('shows sign-up rule failures on the form and refuses forms without a CSRF token', async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/signup`);
  await page.fill('input[name=email]', 'someone-else@example.com');
  await page.fill('input[name=username]', 'ada');
  await page.fill('input[name=password]', 'another long password');
  await page.click('form.card button[type=submit]');
  expect(await page.locator('[role=alert]').innerText()).toBe('username ada is already taken');
  expect(await page.inputValue('input[name=email]')).toBe('someone-else@example.com');
  await page.close();
  const forged = await t.app.inject({
    method: 'POST',
    url: '/login',
    payload: 'email=a%40b.c&password=xxxxxxxxxxxx',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(forged.statusCode).toBe(403);
  // The API still takes JSON only.
  const form = await t.app.inject({
    method: 'POST',
    url: '/api/register',
    payload: 'a=b',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(form.statusCode).toBe(415);
});
