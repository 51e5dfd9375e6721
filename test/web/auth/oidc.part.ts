import { User } from '../../../infra/db/entities/user.entity';
import { UserIdentity } from '../../../infra/db/entities/user-identity.entity';
import { freePort } from '../../../infra/ports';
import { startOidcProvider, ProviderVisitor, type RunningProvider } from './local-provider';
import { Browser, freshEmail, GOOD_PASSWORD, newAccount, startAuthApp, type AuthApp } from './support';

const PUBLIC_URL = 'http://arena.test';
const CLIENT = { clientId: 'arena-web', clientSecret: 'a-client-secret-for-tests' };
const ACCOUNTS = {
  newcomer: { email: 'Newcomer@Example.org', email_verified: true },
  owner: { email: 'owner@example.org', email_verified: true },
  claimant: { email: 'victim@example.org', email_verified: false },
  anonymous: {},
  linker: { email: 'linker-at-provider@example.org', email_verified: true },
  stranger: {},
};
const EMAIL_IN_USE =
  'an account with this email already exists: sign in to it with its password, then link your identity provider on your account page';

let provider: RunningProvider;
let t: AuthApp;
beforeAll(async () => {
  provider = await startOidcProvider({
    ...CLIENT,
    redirectUri: `${PUBLIC_URL}/auth/oidc/callback`,
    accounts: ACCOUNTS,
  });
  t = await startAuthApp({ publicUrl: PUBLIC_URL, oidc: { issuer: provider.issuer, ...CLIENT } });
});
afterAll(async () => {
  await t?.close();
  await provider?.stop();
});

/** Leaves the app for the provider; returns the authorization URL it was sent to. */
async function start(browser: Browser, next?: string): Promise<URL> {
  const res = await browser.request({
    method: 'GET',
    url: `/auth/oidc/start${next ? `?next=${encodeURIComponent(next)}` : ''}`,
  });
  expect(res.statusCode).toBe(303);
  return new URL(res.headers.location as string);
}

/** The whole round trip: start, log in and consent at the provider, come back to the callback. */
async function signInAs(login: keyof typeof ACCOUNTS, next?: string) {
  const browser = new Browser(t.app);
  const authorization = await start(browser, next);
  const callback = new URL(await new ProviderVisitor().signIn(authorization.href, login));
  expect(callback.origin + callback.pathname).toBe(`${PUBLIC_URL}/auth/oidc/callback`);
  const res = await browser.request({ method: 'GET', url: callback.pathname + callback.search });
  return { browser, res };
}

async function whoAmI(browser: Browser): Promise<string | null> {
  return (await browser.request({ method: 'GET', url: '/form' })).json().user;
}

const em = () => t.orm.em.fork();

describe('sign-in through an OpenID Connect provider', () => {
  it('asks for the code flow with PKCE (S256), state and nonce, and keeps them in a short-lived signed cookie', async () => {
    const browser = new Browser(t.app);
    const url = await start(browser);
    expect(url.origin).toBe(provider.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: CLIENT.clientId,
      response_type: 'code',
      redirect_uri: `${PUBLIC_URL}/auth/oidc/callback`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    const res = await browser.request({ method: 'GET', url: '/auth/oidc/start' });
    const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((h) => h.startsWith('arena_oidc='))!;
    expect(header).toMatch(/Max-Age=600; Path=\/auth\/oidc; HttpOnly; SameSite=Lax/);
  });

  it('creates an account for a new person with a verified email, links the identity and starts a session', async () => {
    const { browser, res } = await signInAs('newcomer', '/private');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/private');
    expect((await browser.request({ method: 'GET', url: '/private' })).statusCode).toBe(200);
    const user = await em().findOneOrFail(User, { email: 'newcomer@example.org' });
    expect(await whoAmI(browser)).toBe(user.username);
    const identities = await em().find(UserIdentity, { user });
    expect(identities.map((i) => [i.provider, i.subject])).toEqual([[provider.issuer, 'newcomer']]);
    expect(browser.cookies.has('arena_oidc')).toBe(false);
  });

  it('signs the same identity in to the same account next time', async () => {
    const first = await signInAs('anonymous');
    const second = await signInAs('anonymous');
    const name = await whoAmI(first.browser);
    expect(name).toMatch(/^user-/);
    expect(await whoAmI(second.browser)).toBe(name);
    expect((await em().findOneOrFail(User, { username: name! })).email).toBeNull();
  });

  it('never signs in to an existing account with the same email: it refuses, and says to sign in with the password and link', async () => {
    // The pre-hijack: someone signed up with the owner's email and a password of their own first.
    const squatter = await newAccount(em(), { email: 'Owner@example.org', password: GOOD_PASSWORD });
    const before = await em().count(User);
    const { browser, res } = await signInAs('owner', '/private');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/login?error=${encodeURIComponent(EMAIL_IN_USE)}`);
    expect(await whoAmI(browser)).toBeNull();
    expect(browser.cookies.has('arena_session')).toBe(false);
    expect(await em().count(User)).toBe(before);
    expect(await em().count(UserIdentity, { subject: 'owner' })).toBe(0);
    expect(await em().count(UserIdentity, { user: squatter.id })).toBe(0);
  });

  it('never links on an unverified email: a separate account, without that email', async () => {
    const victim = await newAccount(em(), { email: 'victim@example.org', password: GOOD_PASSWORD });
    const { browser } = await signInAs('claimant');
    const name = await whoAmI(browser);
    expect(name).not.toBe(victim.username);
    expect((await em().findOneOrFail(User, { username: name! })).email).toBeNull();
    expect(await em().count(UserIdentity, { user: victim.id })).toBe(0);
  });

  it('only returns to paths on this site', async () => {
    for (const next of [
      '//evil.example/steal',
      '/\t/evil.example',
      '/.//evil.example',
      '/\\evil.example',
      'https:evil.example',
    ]) {
      const { res } = await signInAs('anonymous', next);
      expect({ next, location: res.headers.location }).toEqual({ next, location: '/' });
    }
    expect((await signInAs('anonymous', 'http://arena.test/private?tab=keys')).res.headers.location).toBe(
      '/private?tab=keys',
    );
  });

  it('refuses a callback whose state does not match, without signing in', async () => {
    const browser = new Browser(t.app);
    const authorization = await start(browser);
    const callback = new URL(await new ProviderVisitor().signIn(authorization.href, 'newcomer'));
    callback.searchParams.set('state', 'not-the-state');
    const res = await browser.request({ method: 'GET', url: callback.pathname + callback.search });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(
      `/login?error=${encodeURIComponent('the sign-in could not be completed; start again')}`,
    );
    expect(await whoAmI(browser)).toBeNull();
  });

  it("refuses a sign-in that took longer than ten minutes on the app's clock, without signing in", async () => {
    let now = new Date();
    const timed = await startAuthApp({
      publicUrl: PUBLIC_URL,
      oidc: { issuer: provider.issuer, ...CLIENT },
      clock: () => now,
    });
    try {
      const browser = new Browser(timed.app);
      const authorization = await start(browser);
      const callback = new URL(await new ProviderVisitor().signIn(authorization.href, 'newcomer'));
      now = new Date(now.getTime() + 10 * 60_000 + 1_000);
      const res = await browser.request({ method: 'GET', url: callback.pathname + callback.search });
      expect(res.headers.location).toMatch(/^\/login\?error=this%20sign-in%20expired/);
      expect(await whoAmI(browser)).toBeNull();
    } finally {
      await timed.close();
    }
  });

  it('refuses a callback in a browser that did not start the sign-in', async () => {
    const authorization = await start(new Browser(t.app));
    const callback = new URL(await new ProviderVisitor().signIn(authorization.href, 'newcomer'));
    const other = new Browser(t.app);
    const res = await other.request({ method: 'GET', url: callback.pathname + callback.search });
    expect(res.headers.location).toMatch(
      /^\/login\?error=this%20sign-in%20expired%20or%20was%20started%20in%20another%20browser/,
    );
    expect(await whoAmI(other)).toBeNull();
  });

  it('passes on the provider refusing the sign-in', async () => {
    const browser = new Browser(t.app);
    const state = (await start(browser)).searchParams.get('state')!;
    const res = await browser.request({
      method: 'GET',
      url: `/auth/oidc/callback?error=access_denied&error_description=End-User%20aborted&state=${state}`,
    });
    // The provider's own words stay out of the link: the login page shows only sentences of its own.
    expect(res.headers.location).toBe(
      `/login?error=${encodeURIComponent('the identity provider did not sign you in')}`,
    );
  });

  it('says so when the provider cannot be reached', async () => {
    const down = await startAuthApp({
      publicUrl: PUBLIC_URL,
      oidc: { issuer: `http://127.0.0.1:${await freePort()}`, ...CLIENT },
    });
    try {
      const res = await down.app.inject({ method: 'GET', url: '/auth/oidc/start' });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(
        `/login?error=${encodeURIComponent('the identity provider is unavailable; try again shortly')}`,
      );
    } finally {
      await down.close();
    }
  });

  it('adds no routes when no provider is configured', async () => {
    const plain = await startAuthApp();
    try {
      expect((await plain.app.inject({ method: 'GET', url: '/auth/oidc/start' })).statusCode).toBe(404);
      expect((await plain.app.inject({ method: 'POST', url: '/auth/oidc/link' })).statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('linking an identity provider to a signed-in account', () => {
  async function signedInWithPassword(): Promise<{ browser: Browser; user: User }> {
    const email = freshEmail('linking');
    const user = await newAccount(em(), { email, password: GOOD_PASSWORD });
    const browser = new Browser(t.app);
    expect((await browser.submit('/login', { email, password: GOOD_PASSWORD })).statusCode).toBe(303);
    return { browser, user };
  }

  /** Starts linking from the account page's form, signs in at the provider, and comes back. */
  async function link(browser: Browser, login: string) {
    const started = await browser.submit('/auth/oidc/link', {});
    expect(started.statusCode).toBe(303);
    const callback = new URL(await new ProviderVisitor().signIn(started.headers.location as string, login));
    return browser.request({ method: 'GET', url: callback.pathname + callback.search });
  }

  it('links the identity to the signed-in account, which it signs in to from then on', async () => {
    const { browser, user } = await signedInWithPassword();
    const res = await link(browser, 'linker');
    expect([res.statusCode, res.headers.location]).toEqual([303, '/account?done=linked']);
    expect(await whoAmI(browser)).toBe(user.username);
    expect((await em().find(UserIdentity, { user: user.id })).map((i) => [i.provider, i.subject])).toEqual([
      [provider.issuer, 'linker'],
    ]);
    expect(await whoAmI((await signInAs('linker')).browser)).toBe(user.username);
    // Linking again is harmless.
    expect((await link(browser, 'linker')).headers.location).toBe('/account?done=linked');
    expect(await em().count(UserIdentity, { user: user.id })).toBe(1);
  });

  it('refuses an identity that is already linked to another account, and changes nothing', async () => {
    const other = await signInAs('stranger');
    const { browser, user } = await signedInWithPassword();
    const res = await link(browser, 'stranger');
    expect(res.headers.location).toBe(
      `/account?error=${encodeURIComponent('this identity is already linked to another account')}`,
    );
    expect(await em().count(UserIdentity, { user: user.id })).toBe(0);
    expect(await whoAmI((await signInAs('stranger')).browser)).toBe(await whoAmI(other.browser));
  });

  it('needs a signed-in person and a CSRF token to start', async () => {
    const { browser } = await signedInWithPassword();
    expect((await browser.submit('/auth/oidc/link', {}, false)).statusCode).toBe(403);
    const anonymous = new Browser(t.app);
    const res = await anonymous.submit('/auth/oidc/link', {});
    expect(res.statusCode).toBe(401);
    expect(anonymous.cookies.has('arena_oidc')).toBe(false);
  });

  it('refuses a link that comes back to a different sign-in than the one that started it', async () => {
    const first = await signedInWithPassword();
    const started = await first.browser.submit('/auth/oidc/link', {});
    const callback = new URL(await new ProviderVisitor().signIn(started.headers.location as string, 'linker-two'));
    // Someone else signs in on this browser before the provider sends it back.
    const second = await newAccount(em(), { email: freshEmail('second'), password: GOOD_PASSWORD });
    expect((await first.browser.submit('/login', { email: second.email!, password: GOOD_PASSWORD })).statusCode).toBe(
      303,
    );
    const res = await first.browser.request({ method: 'GET', url: callback.pathname + callback.search });
    expect(res.headers.location).toBe(
      `/account?error=${encodeURIComponent('this link was started in another sign-in; start again from your account page')}`,
    );
    expect(await em().count(UserIdentity, { subject: 'linker-two' })).toBe(0);
  });
});
