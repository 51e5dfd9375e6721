import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { installErrorHandling } from '../../../api/errors';
import { ormPlugin } from '../../../api/plugins/orm';
import { webAuthPlugin } from '../../../api/web/auth';
import { WebSession } from '../../../infra/db/entities/web-session.entity';
import { hashToken } from '../../../domain/credentials';
import { Browser, freshEmail, GOOD_PASSWORD, startAuthApp, type AuthApp } from './support';

let t: AuthApp;
beforeAll(async () => {
  t = await startAuthApp({ loginLimit: 3 });
});
afterAll(() => t.close());

type Cookie = {
  name: string;
  value: string;
  httpOnly?: boolean;
  sameSite?: string;
  secure?: boolean;
  path?: string;
  maxAge?: number;
};
const cookieNamed = (res: { cookies: unknown[] }, name: string) =>
  (res.cookies as Cookie[]).find((c) => c.name === name);

async function signedUp(browser: Browser, email = freshEmail()): Promise<string> {
  const res = await browser.submit('/signup', { email, password: GOOD_PASSWORD });
  expect(res.statusCode).toBe(303);
  return email;
}

describe('session cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, 30 days, and not Secure on a plain-http site', async () => {
    const browser = new Browser(t.app);
    const res = await browser.submit('/signup', { email: freshEmail(), password: GOOD_PASSWORD });
    const header = ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .find((h) => h.startsWith('arena_session='))!;
    expect(header).toMatch(/; HttpOnly/);
    expect(header).toMatch(/; SameSite=Lax/);
    expect(header).toMatch(/; Path=\//);
    expect(header).toMatch(/; Max-Age=2592000/);
    expect(header).not.toMatch(/Secure/);
  });

  it('is Secure when the public URL is https, and so are the CSRF and sign-in cookies', async () => {
    const secure = await startAuthApp({ publicUrl: 'https://arena.example' });
    try {
      const browser = new Browser(secure.app);
      const form = await browser.request({ method: 'GET', url: '/form' });
      expect(cookieNamed(form, 'arena_csrf')).toMatchObject({
        secure: true,
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
      });
      const res = await browser.submit('/signup', { email: freshEmail(), password: GOOD_PASSWORD });
      expect(cookieNamed(res, 'arena_session')).toMatchObject({
        secure: true,
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        maxAge: 2592000,
      });
    } finally {
      await secure.close();
    }
  });
});

describe('request.webUser and requireWebUser', () => {
  it('resolves the session cookie to the signed-in account', async () => {
    const browser = new Browser(t.app);
    expect((await browser.request({ method: 'GET', url: '/form' })).json().user).toBeNull();
    await signedUp(browser);
    const me = await browser.request({ method: 'GET', url: '/private' });
    expect(me.statusCode).toBe(200);
    expect(me.json().username).toMatch(/^user-/);
  });

  it('sends a browser without a session to the login page, and answers 401 to anything else', async () => {
    const browser = new Browser(t.app);
    const page = await browser.request({
      method: 'GET',
      url: '/private?tab=keys',
      headers: { accept: 'text/html,*/*' },
    });
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/login?next=%2Fprivate%3Ftab%3Dkeys');
    const api = await browser.request({ method: 'GET', url: '/private', headers: { accept: 'application/json' } });
    expect(api.statusCode).toBe(401);
    expect(api.json().detail).toBe('sign in on the website first');
  });

  it("ends a session when its 30 days have passed on the app's clock, with no wait and no edit of its row", async () => {
    const DAY = 24 * 60 * 60 * 1000;
    let now = new Date();
    const timed = await startAuthApp({ clock: () => now });
    try {
      const browser = new Browser(timed.app);
      await signedUp(browser);
      now = new Date(now.getTime() + 30 * DAY - 60_000);
      expect((await browser.request({ method: 'GET', url: '/private' })).statusCode).toBe(200);
      now = new Date(now.getTime() + 2 * 60_000);
      const late = await browser.request({ method: 'GET', url: '/private', headers: { accept: 'application/json' } });
      expect(late.statusCode).toBe(401);
      // The browser is told to drop the cookie, so it stops sending it.
      expect(browser.cookies.has('arena_session')).toBe(false);
    } finally {
      await timed.close();
    }
  });

  it('ignores and clears a cookie that matches no session', async () => {
    const browser = new Browser(t.app);
    browser.cookies.set('arena_session', 'A'.repeat(43));
    const res = await browser.request({ method: 'GET', url: '/form' });
    expect(res.json().user).toBeNull();
    expect(browser.cookies.has('arena_session')).toBe(false);
  });
});

describe('login and logout', () => {
  it('logs in with the right password and out again, ending the session on the server', async () => {
    const signup = new Browser(t.app);
    const email = await signedUp(signup);
    const browser = new Browser(t.app);
    const wrong = await browser.submit('/login', { email, password: 'not the password' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().detail).toBe('wrong email or password');
    expect((await browser.submit('/login', { email: email.toUpperCase(), password: GOOD_PASSWORD })).statusCode).toBe(
      303,
    );
    const token = browser.cookies.get('arena_session')!;
    expect((await browser.request({ method: 'GET', url: '/private' })).statusCode).toBe(200);

    expect((await browser.submit('/logout', {})).statusCode).toBe(303);
    expect(browser.cookies.has('arena_session')).toBe(false);
    // A copy of the old cookie is worthless: the row is gone.
    const replay = await t.app.inject({ method: 'GET', url: '/private', cookies: { arena_session: token } });
    expect(replay.statusCode).toBe(401);
  });

  it('replaces a session token planted before login with a fresh one', async () => {
    const email = await signedUp(new Browser(t.app));
    const browser = new Browser(t.app);
    await signedUp(browser);
    const planted = browser.cookies.get('arena_session')!;
    await browser.submit('/login', { email, password: GOOD_PASSWORD });
    expect(browser.cookies.get('arena_session')).not.toBe(planted);
    const replay = await t.app.inject({ method: 'GET', url: '/private', cookies: { arena_session: planted } });
    expect(replay.statusCode).toBe(401);
    expect(await t.orm.em.fork().count(WebSession, { id: hashToken(planted) })).toBe(0);
  });

  it('limits log-in attempts per client address with 429 and Retry-After', async () => {
    const email = await signedUp(new Browser(t.app));
    const guesser = new Browser(t.app, '10.66.0.1');
    for (let i = 0; i < 3; i++)
      expect((await guesser.submit('/login', { email, password: `guess number ${i}` })).statusCode).toBe(401);
    const limited = await guesser.submit('/login', { email, password: GOOD_PASSWORD });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json().detail).toMatch(/rate limit/);
    expect(
      (await new Browser(t.app, '10.66.0.2').submit('/login', { email, password: GOOD_PASSWORD })).statusCode,
    ).toBe(303);
  });
});

describe('CSRF protection', () => {
  it('refuses a form post without a token, and accepts one with the token from the page', async () => {
    const browser = new Browser(t.app);
    const bare = await browser.submit('/form', { note: 'hello' }, false);
    expect(bare.statusCode).toBe(403);
    await browser.request({ method: 'GET', url: '/form' });
    const forged = await browser.submit('/form', { note: 'hello', _csrf: 'made-up-token' });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().detail).toMatch(/csrf/i);
    const ok = await browser.submit('/form', { note: 'hello' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().accepted).toMatchObject({ note: 'hello' });
  });

  it('accepts the token in an x-csrf-token header too', async () => {
    const browser = new Browser(t.app);
    const token = await browser.csrf();
    const res = await browser.request({
      method: 'POST',
      url: '/form',
      headers: { 'x-csrf-token': token },
      payload: { note: 'json' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('refuses a token taken from another browser', async () => {
    const victim = new Browser(t.app);
    await victim.csrf();
    const attackerToken = await new Browser(t.app).csrf();
    expect((await victim.submit('/form', { _csrf: attackerToken })).statusCode).toBe(403);
  });

  it('binds tokens to the session: one made before login, or in an ended session, no longer passes', async () => {
    const browser = new Browser(t.app);
    const beforeLogin = await browser.csrf();
    await signedUp(browser);
    expect((await browser.submit('/form', { _csrf: beforeLogin })).statusCode).toBe(403);
    const duringSession = await browser.csrf();
    expect((await browser.submit('/form', { _csrf: duringSession })).statusCode).toBe(200);
    await browser.submit('/logout', {});
    expect((await browser.submit('/form', { _csrf: duringSession })).statusCode).toBe(403);
  });

  it('keeps the CSRF secret in a signed HttpOnly cookie', async () => {
    const res = await new Browser(t.app).request({ method: 'GET', url: '/form' });
    const secret = cookieNamed(res, 'arena_csrf')!;
    expect(secret).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(secret.secure).toBeFalsy();
    // `<value>.<signature>`: a cookie written by anyone without the key is rejected.
    expect(secret.value).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_+/=-]+$/);
  });
});

describe('registration scope', () => {
  it('keeps form bodies, cookies and sessions inside the scope it is registered in, so the API stays JSON-only', async () => {
    const app = Fastify({ logger: false });
    installErrorHandling(app);
    await app.register(ormPlugin, { orm: t.orm });
    app.post('/api/echo', async (request) => ({ body: request.body }));
    await app.register(async (website) => {
      await website.register(webAuthPlugin, { publicUrl: 'http://arena.test', secretKey: randomBytes(32) });
      website.post('/echo', async (request) => ({ body: request.body, user: request.webUser }));
    });
    try {
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const site = await app.inject({ method: 'POST', url: '/echo', headers: form, payload: 'a=1' });
      expect(site.json()).toEqual({ body: { a: '1' }, user: null });
      const api = await app.inject({ method: 'POST', url: '/api/echo', headers: form, payload: 'a=1' });
      expect(api.statusCode).toBe(415);
    } finally {
      await app.close();
    }
  });
});
