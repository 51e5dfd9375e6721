import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../support/test-app';
import { WebClient } from './support';

const PASSWORD = 'a long enough password';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

let people = 0;
const nextName = (label: string) => `${label}${++people}x${Date.now() % 100000}`;

/** A person signed up and signed in on a browser of their own. */
async function person(label: string): Promise<{ name: string; email: string; browser: WebClient }> {
  const browser = new WebClient(t.app);
  const name = await browser.signUp(nextName(label));
  return { name, email: `${name}@example.org`, browser };
}

/** The same person signed in on another browser. */
async function anotherBrowser(email: string, password = PASSWORD): Promise<WebClient> {
  const browser = new WebClient(t.app);
  expect((await browser.submit('/login', { email, password })).statusCode).toBe(303);
  return browser;
}

const shownKey = (res: LightMyRequestResponse) => /id="secret">([^<]+)</.exec(res.body)![1]!;
const accountPage = (browser: WebClient) =>
  browser.request({ method: 'GET', url: '/account', headers: { accept: 'text/html' } });
const api = (apiKey: string, method: 'GET' | 'DELETE', url: string) =>
  t.app.inject({ method, url, headers: { authorization: `Bearer ${apiKey}` } });

describe('API keys on /account', () => {
  it('lists the keys with prefix, created and last used, and revokes one, which the API refuses at once', async () => {
    const { browser } = await person('keys');
    const first = shownKey(await browser.submit('/account/api-key', {}));
    const second = shownKey(await browser.submit('/account/api-key', {}));
    const keys = (await api(first, 'GET', '/api/keys')).json() as Array<{ id: number; prefix: string }>;
    expect(keys.map((k) => k.prefix)).toEqual([first.slice(0, 10), second.slice(0, 10)]);

    const page = await accountPage(browser);
    for (const key of keys) {
      const row = new RegExp(`<tr id="key-${key.id}">[\\s\\S]*?</tr>`).exec(page.body)?.[0] ?? '';
      expect(row).toContain(`<code>${key.prefix}…</code>`);
      expect(row).toContain(`action="/account/api-keys/${key.id}/revoke"`);
    }
    expect(page.body).not.toContain(first);
    expect(page.body).toMatch(/never/);

    const revoked = await browser.submit(`/account/api-keys/${keys[1]!.id}/revoke`, {});
    expect([revoked.statusCode, revoked.headers.location]).toEqual([303, '/account?done=revoked']);
    expect((await api(second, 'GET', '/api/account')).statusCode).toBe(401);
    expect((await api(first, 'GET', '/api/account')).statusCode).toBe(200);
    const after = await browser.request({
      method: 'GET',
      url: '/account?done=revoked',
      headers: { accept: 'text/html' },
    });
    expect(after.body).toContain('API key revoked: it no longer works.');
    expect(after.body).not.toContain(`id="key-${keys[1]!.id}"`);
  });

  it("refuses someone else's key (404) and a form without a CSRF token, revoking nothing", async () => {
    const owner = await person('owner');
    const ownerKey = shownKey(await owner.browser.submit('/account/api-key', {}));
    const [{ id }] = (await api(ownerKey, 'GET', '/api/keys')).json();
    const stranger = await person('stranger');
    const res = await stranger.browser.submit(`/account/api-keys/${id}/revoke`, {});
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('API key not found');
    expect((await owner.browser.submit(`/account/api-keys/${id}/revoke`, {}, false)).statusCode).toBe(403);
    expect((await stranger.browser.submit('/account/api-keys/abc/revoke', {})).statusCode).toBe(404);
    expect((await api(ownerKey, 'GET', '/api/account')).statusCode).toBe(200);
  });

  it('limits issuing keys per account per minute', async () => {
    const { browser } = await person('issuer');
    for (let i = 0; i < 5; i++) expect((await browser.submit('/account/api-key', {})).statusCode).toBe(200);
    const limited = await browser.submit('/account/api-key', {});
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^text\/html/);
    expect(limited.body).not.toMatch(/id="secret"/);
    const other = await person('other-issuer');
    expect((await other.browser.submit('/account/api-key', {})).statusCode).toBe(200);
  });
});

describe('password change', () => {
  it('needs the current password, then ends the other sessions of the person and keeps this one', async () => {
    const { email, browser } = await person('changer');
    const elsewhere = await anotherBrowser(email);
    const wrong = await browser.submit('/account/password', {
      current_password: 'not my password',
      new_password: 'a brand new password',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('current_password: is not your password');
    const short = await browser.submit('/account/password', { current_password: PASSWORD, new_password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('new_password: must be 10 to 200 characters');
    expect((await accountPage(elsewhere)).statusCode).toBe(200);

    const changed = await browser.submit('/account/password', {
      current_password: PASSWORD,
      new_password: 'a brand new password',
    });
    expect([changed.statusCode, changed.headers.location]).toEqual([303, '/account?done=password']);
    expect((await accountPage(browser)).statusCode).toBe(200);
    const ended = await accountPage(elsewhere);
    expect([ended.statusCode, ended.headers.location]).toEqual([303, '/login?next=%2Faccount']);
    expect((await new WebClient(t.app).submit('/login', { email, password: PASSWORD })).statusCode).toBe(401);
    await anotherBrowser(email, 'a brand new password');
  });

  it('refuses a form without a CSRF token and changes nothing', async () => {
    const { email, browser } = await person('csrf');
    const res = await browser.submit(
      '/account/password',
      { current_password: PASSWORD, new_password: 'a brand new password' },
      false,
    );
    expect(res.statusCode).toBe(403);
    await anotherBrowser(email);
  });
});

describe('sign out everywhere', () => {
  it("ends every website session of the person, this one included, and no one else's", async () => {
    const { email, browser } = await person('leaver');
    const elsewhere = await anotherBrowser(email);
    const bystander = await person('bystander');
    const res = await browser.submit('/account/sign-out-everywhere', {});
    expect([res.statusCode, res.headers.location]).toEqual([303, '/']);
    expect(browser.cookies.has('arena_session')).toBe(false);
    for (const signedOut of [browser, elsewhere]) expect((await accountPage(signedOut)).statusCode).toBe(303);
    expect((await accountPage(bystander.browser)).statusCode).toBe(200);
    expect((await bystander.browser.submit('/account/sign-out-everywhere', {}, false)).statusCode).toBe(403);
    expect((await accountPage(bystander.browser)).statusCode).toBe(200);
  });
});

describe('linking failures on /account', () => {
  it("shows the arena's own sentence, and nothing a crafted link makes up", async () => {
    const { browser } = await person('linker');
    const linkedElsewhere = await browser.request({
      method: 'GET',
      url: `/account?error=${encodeURIComponent('this identity is already linked to another account')}`,
      headers: { accept: 'text/html' },
    });
    expect(linkedElsewhere.body).toContain('role="alert">this identity is already linked to another account</p>');
    const crafted = await browser.request({
      method: 'GET',
      url: `/account?error=${encodeURIComponent('Send your API key to support@evil.example')}`,
      headers: { accept: 'text/html' },
    });
    expect(crafted.statusCode).toBe(200);
    expect(crafted.body).not.toContain('role="alert"');
  });
});
