import { safeNextPath } from '../../api/web/auth';
import { startTestApp, type TestApp } from '../support/test-app';
import { WebClient } from './support';

const PUBLIC_URL = 'http://arena.test';
const PASSWORD = 'a long enough password';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ ARENA_PUBLIC_URL: PUBLIC_URL });
});
afterAll(() => t.close());

let people = 0;
const freshEmail = () => `signin-${++people}-${Date.now() % 100000}@example.org`;

async function signedUpEmail(): Promise<string> {
  const email = freshEmail();
  // Sign-up's own answer is tested below; here only the account matters.
  expect((await new WebClient(t.app).submit('/signup', { email, password: PASSWORD })).statusCode).toBeLessThan(400);
  return email;
}

/** Ways to write "another site" that a browser follows, and that a prefix check on `/` lets through. */
const ELSEWHERE = [
  '/\t/evil.example',
  '/\t\t/evil.example',
  '\t//evil.example',
  '/\\evil.example',
  '\\/evil.example',
  '\\\\evil.example',
  '//evil.example',
  '///evil.example',
  '/.//evil.example',
  '/a/..//evil.example',
  '/\r\n/evil.example',
  'https:evil.example',
  'https://evil.example/',
  'http://arena.test@evil.example/',
  'javascript:alert(1)',
];

describe('where log-in sends the person afterwards', () => {
  it.each(ELSEWHERE)('never to another site: %j', (next) => {
    expect(safeNextPath(next, PUBLIC_URL)).toBe('/');
  });

  it.each([
    ['/account', '/account'],
    ['/agents/7?page=2#feed', '/agents/7?page=2#feed'],
    ['/%09/evil.example', '/%09/evil.example'],
    ['/%5C/evil.example', '/%5C/evil.example'],
    ['http://arena.test/judge', '/judge'],
  ])('to a path on this site, as a path: %j', (next, path) => {
    expect(safeNextPath(next, PUBLIC_URL)).toBe(path);
  });

  it('refuses the probe `next=/%09/evil.example` on the real form, in the query and in the body', async () => {
    const email = await signedUpEmail();
    const person = new WebClient(t.app);
    const page = await person.request({
      method: 'GET',
      url: '/login?next=/%09/evil.example',
      headers: { accept: 'text/html' },
    });
    expect(page.body).toContain('name="next" value="/"');
    for (const next of ELSEWHERE) {
      const res = await new WebClient(t.app).submit('/login', { email, password: PASSWORD, next });
      expect({ next, status: res.statusCode, location: res.headers.location }).toEqual({
        next,
        status: 303,
        location: '/',
      });
    }
    const raw = await person.request({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(await person.csrf())}&email=${encodeURIComponent(email)}&password=${encodeURIComponent(PASSWORD)}&next=/%09/evil.example`,
    });
    expect([raw.statusCode, raw.headers.location]).toEqual([303, '/']);
    const home = await new WebClient(t.app).submit('/login', { email, password: PASSWORD, next: '/users?q=ada' });
    expect(home.headers.location).toBe('/users?q=ada');
  });
});

describe('sign-up', () => {
  /** The page without what differs on every render (the CSRF token) and the email typed in. */
  const normalised = (body: string, email: string) =>
    body
      .replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf" value=""')
      .split(email)
      .join('<email>');

  it('answers the same whether or not the email already has an account, and leaves that account alone', async () => {
    const known = await signedUpEmail();
    const fresh = freshEmail();
    const [forKnown, forFresh] = [
      await new WebClient(t.app).submit('/signup', { email: known, password: 'the claimant password' }),
      await new WebClient(t.app).submit('/signup', { email: fresh, password: 'the claimant password' }),
    ];
    expect(forKnown.statusCode).toBe(forFresh.statusCode);
    expect(forKnown.headers.location).toBe(forFresh.headers.location);
    expect(normalised(forKnown.body, known)).toBe(normalised(forFresh.body, fresh));
    const cookieNames = (res: typeof forKnown) => (res.cookies as Array<{ name: string }>).map((c) => c.name).sort();
    expect(cookieNames(forKnown)).toEqual(cookieNames(forFresh));
    expect(cookieNames(forKnown)).not.toContain('arena_session');
    expect(forKnown.body).toContain('If this email already has an account');

    // The new account works with its password; the old one still has only its own.
    expect(
      (await new WebClient(t.app).submit('/login', { email: fresh, password: 'the claimant password' })).statusCode,
    ).toBe(303);
    expect(
      (await new WebClient(t.app).submit('/login', { email: known, password: 'the claimant password' })).statusCode,
    ).toBe(401);
    expect((await new WebClient(t.app).submit('/login', { email: known, password: PASSWORD })).statusCode).toBe(303);
  });

  it('still says what is wrong with the form itself', async () => {
    const res = await new WebClient(t.app).submit('/signup', { email: freshEmail(), password: 'short' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('password: must be 10 to 200 characters');
  });
});

describe('failures sent back from the identity provider', () => {
  const EMAIL_IN_USE =
    'an account with this email already exists: sign in to it with its password, then link your identity provider on your account page';

  it("shows the arena's own sentence on the login page, and nothing a crafted link makes up", async () => {
    const shown = await new WebClient(t.app).request({
      method: 'GET',
      url: `/login?error=${encodeURIComponent(EMAIL_IN_USE)}`,
      headers: { accept: 'text/html' },
    });
    expect(shown.body).toContain(`<p class="status-error" role="alert">${EMAIL_IN_USE}</p>`);
    const crafted = await new WebClient(t.app).request({
      method: 'GET',
      url: `/login?error=${encodeURIComponent('Your account is locked: call +1 555 0100')}`,
      headers: { accept: 'text/html' },
    });
    expect(crafted.statusCode).toBe(200);
    expect(crafted.body).not.toContain('call +1 555 0100');
    expect(crafted.body).not.toContain('role="alert"');
  });
});
