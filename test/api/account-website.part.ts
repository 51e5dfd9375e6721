/**
 * An account made with POST /api/register reaches the website: PATCH /api/account takes an email,
 * PUT /api/account/password sets the first password with the key alone and changes it only with
 * the current one. (The sign-in itself, in Chromium, is in test/web/newcomer-pages.part.ts.)
 */
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { WebClient } from '../web/support';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const patch = (who: Registered, payload: object) =>
  t.app.inject({ method: 'PATCH', url: '/api/account', headers: who.auth, payload });
const put = (who: Registered, payload: object) =>
  t.app.inject({ method: 'PUT', url: '/api/account/password', headers: who.auth, payload });
const emailOf = async (who: Registered) =>
  (await t.app.inject({ method: 'GET', url: '/api/account', headers: who.auth })).json().email;
const logIn = async (email: string, password: string) => {
  const web = new WebClient(t.app);
  const res = await web.submit('/login', { email, password });
  return { web, res };
};

describe('an account made through the API', () => {
  it('takes an email (validated, unique, stored lowercase), then a password, then signs in on the website', async () => {
    const owner = await register(t.app);
    expect(await emailOf(owner)).toBeNull();
    // No email yet: a password would have nothing to sign in with.
    const early = await put(owner, { password: 'a long enough password' });
    expect(early.statusCode).toBe(409);
    expect(early.json().detail).toBe(
      'the website signs in by email: set one first with PATCH /api/account {"email": "..."}',
    );

    const bad = await patch(owner, { email: 'not an email' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toBe('email must be a valid email address');
    expect(await emailOf(owner)).toBeNull();

    const someone = new WebClient(t.app);
    const takenName = `taken${Date.now() % 100000}`;
    const taken = `${takenName}@example.org`;
    await someone.signUp(takenName);
    const clash = await patch(owner, { email: taken.toUpperCase(), bio: 'changed?' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().detail).toBe('that email belongs to another account; sign in to that one instead');
    const unchanged = (await t.app.inject({ method: 'GET', url: '/api/account', headers: owner.auth })).json();
    expect(unchanged).toMatchObject({ email: null, bio: null });

    const email = `Owner${owner.userId}@Example.org`;
    const ok = await patch(owner, { email });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().email).toBe(email.toLowerCase());

    const short = await put(owner, { password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().detail).toBe('password: must be 10 to 200 characters');
    const set = await put(owner, { password: 'a long enough password' });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ password_set: true, sign_in: expect.stringMatching(/\/login$/) });

    const { res } = await logIn(email, 'a long enough password');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/');
  });

  it('changes a password it already has only with the current one, and signs out the website', async () => {
    const owner = await register(t.app);
    const email = `changer${owner.userId}@example.org`;
    await patch(owner, { email });
    expect((await put(owner, { password: 'the first password' })).statusCode).toBe(200);
    const { web } = await logIn(email, 'the first password');

    const bare = await put(owner, { password: 'the second password' });
    expect(bare.statusCode).toBe(409);
    expect(bare.json().detail).toBe('current_password: is required to change the password this account has');
    const wrong = await put(owner, { password: 'the second password', current_password: 'not it at all' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().detail).toBe('current_password: is not your password');
    expect((await logIn(email, 'the first password')).res.statusCode).toBe(303);

    const changed = await put(owner, { password: 'the second password', current_password: 'the first password' });
    expect(changed.statusCode).toBe(200);
    expect((await logIn(email, 'the first password')).res.statusCode).toBe(401);
    expect((await logIn(email, 'the second password')).res.statusCode).toBe(303);
    // The session signed in with the old password is over.
    const account = await web.request({ method: 'GET', url: '/account', headers: { accept: 'text/html' } });
    expect(account.statusCode).toBe(303);
  });

  it('refuses a body with unknown fields, and limits email tries', async () => {
    const owner = await register(t.app);
    const odd = await put(owner, { password: 'a long enough password', admin: true });
    expect(odd.statusCode).toBe(400);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await patch(owner, { email: `try${i}-${owner.userId}@example.org` })).statusCode);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
    // Other fields are not limited by it.
    expect((await patch(owner, { bio: 'still editable' })).statusCode).toBe(200);
  });
});
