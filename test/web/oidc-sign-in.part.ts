import type { Browser } from 'playwright-core';
import { freePort } from '../../infra/ports';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadOpenidClientInJest } from './auth/esm-loader';
import { startOidcProvider, type RunningProvider } from './auth/local-provider';
import { launchBrowser, screenshot } from './browser';
import { signUpInBrowser } from './support';

const CLIENT = { clientId: 'arena-website', clientSecret: 'a-client-secret-for-browser-tests' };

let provider: RunningProvider;
let t: TestApp;
let browser: Browser;
let base: string;

beforeAll(async () => {
  // The redirect URI registered at the provider must be the address the browser really uses.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider({
    ...CLIENT,
    redirectUri: `${base}/auth/oidc/callback`,
    accounts: {
      grace: { email: 'Grace@Example.org', email_verified: true },
      hopper: { email: 'hopper@provider.example', email_verified: true },
    },
  });
  t = await startTestApp(
    {
      ARENA_PUBLIC_URL: base,
      ARENA_OIDC_ISSUER: provider.issuer,
      ARENA_OIDC_CLIENT_ID: CLIENT.clientId,
      ARENA_OIDC_CLIENT_SECRET: CLIENT.clientSecret,
    },
    { loadOpenidClient: loadOpenidClientInJest },
  );
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await provider?.stop();
});

it('signs a person in through the identity provider in a real browser, creating their account, and back to where they were going', async () => {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`${base}/account`);
  await page.waitForURL(`${base}/login?next=%2Faccount`);
  await page.click('text=Sign in with your identity provider');

  // The provider's own login and consent screens.
  await page.waitForURL((url) => url.origin === provider.issuer, { waitUntil: 'domcontentloaded' });
  await page.fill('input[name=login]', 'grace');
  await page.fill('input[name=password]', 'any password');
  await screenshot(page, 'oidc-provider-login');
  await page.click('button[type=submit]');
  await page.waitForSelector('input[name=prompt][value=consent]', { state: 'attached' });
  await page.click('button[type=submit]');

  await page.waitForURL(`${base}/account`);
  await screenshot(page, 'oidc-signed-in-account');
  expect(await page.locator('main').innerText()).toContain('signed in as grace@example.org');
  const [user] = await t.orm.em
    .fork()
    .getConnection()
    .execute(
      `select u.username, i.provider, i.subject from users u join user_identities i on i.user_id = u.id where u.email = 'grace@example.org'`,
    );
  expect(user).toMatchObject({ provider: provider.issuer, subject: 'grace' });
  expect(await page.locator('header').innerText()).toContain(user!.username);

  // Logging out ends the session; the next visit asks to sign in again.
  await page.click('header button[type=submit]');
  await page.goto(`${base}/account`);
  await page.waitForURL(/\/login\?next=/);
  await page.close();
});

it('links the identity provider to an account made with a password, from the account page, and signs in to it from then on', async () => {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  const username = await signUpInBrowser(page, base);
  await page.goto(`${base}/account`);
  await page.click('#link-provider button');

  await page.waitForURL((url) => url.origin === provider.issuer, { waitUntil: 'domcontentloaded' });
  await page.fill('input[name=login]', 'hopper');
  await page.fill('input[name=password]', 'any password');
  await page.click('button[type=submit]');
  await page.waitForSelector('input[name=prompt][value=consent]', { state: 'attached' });
  await page.click('button[type=submit]');

  await page.waitForURL(`${base}/account?done=linked`);
  expect(await page.locator('[role=status]').innerText()).toBe(
    'Identity provider linked: you can sign in with it from now on.',
  );
  expect(await page.locator('ul.identities').innerText()).toContain(new URL(provider.issuer).host);
  await screenshot(page, 'oidc-linked-account');

  await page.click('header button[type=submit]');
  await page.goto(`${base}/login`);
  await page.click('text=Sign in with your identity provider');
  // The provider remembers the person and the consent: straight back, signed in to the same account.
  await page.waitForURL(`${base}/`);
  expect(await page.locator('header').innerText()).toContain(username);
  await page.close();
});
