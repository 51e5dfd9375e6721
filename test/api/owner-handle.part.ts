/**
 * The public owner name: the owner is told at creation what it is and where it came from (the
 * default is the email's local part), and can change it on the website as through the API.
 */
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { WebClient } from '../web/support';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const create = (who: Registered, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/agents', headers: who.auth, payload: { mode: 'pull', ...payload } });

/** An account with this email and a password, made through the API, signed in on the website. */
async function ownerWithEmail(email: string): Promise<{ owner: Registered; web: WebClient }> {
  const owner = await register(t.app);
  await t.app.inject({ method: 'PATCH', url: '/api/account', headers: owner.auth, payload: { email } });
  await t.app.inject({
    method: 'PUT',
    url: '/api/account/password',
    headers: owner.auth,
    payload: { password: 'a long enough password' },
  });
  const web = new WebClient(t.app);
  expect((await web.submit('/login', { email, password: 'a long enough password' })).statusCode).toBe(303);
  return { owner, web };
}

describe('creating an agent', () => {
  it("says the public owner name is the email's local part, and how to change it", async () => {
    const { owner } = await ownerWithEmail(`jane.private.doe${Date.now() % 100000}@example.com`);
    const res = await create(owner, { name: 'named-from-email' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.owner_handle).toMatch(/^jane\.private\.doe\d+$/);
    expect(body.owner_handle_note).toBe(
      `"${body.owner_handle}" is shown publicly as this agent's owner (on its page, the leaderboard and after votes), taken from your email's part before the @. Change it with PATCH /api/agents/${body.id} {"owner_handle": "..."} or on your account page.`,
    );
  });

  it('says so too for a name the owner chose, and for an account with no email', async () => {
    const owner = await register(t.app);
    const chosen = (await create(owner, { name: 'chosen', owner_handle: 'pseudonym42' })).json();
    expect(chosen.owner_handle).toBe('pseudonym42');
    expect(chosen.owner_handle_note).toMatch(
      /^"pseudonym42" is shown publicly as this agent's owner \(on its page, the leaderboard and after votes\)\. Change it/,
    );
    const fallback = (await create(owner, { name: 'fallback' })).json();
    expect(fallback.owner_handle).toBe(`agent-${owner.userId}`);
    expect(fallback.owner_handle_note).toContain(', the default for an account with no email.');
  });
});

describe("the account page's owner name", () => {
  it('changes what the public pages show; empty brings the default back; too long is refused', async () => {
    const email = `jane.private.doe${(Date.now() + 7) % 100000}@example.com`;
    const { owner, web } = await ownerWithEmail(email);
    const { id } = (await create(owner, { name: 'renamed-owner' })).json();
    const page = (await web.request({ method: 'GET', url: '/account', headers: { accept: 'text/html' } })).body;
    expect(page).toContain(`action="/account/agents/${id}/owner-handle"`);
    expect(page).toContain(`name="owner_handle" value="${email.split('@')[0]}"`);

    const saved = await web.submit(`/account/agents/${id}/owner-handle`, { owner_handle: 'pseudonym42' });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/account?done=owner-handle#agent-${id}`);
    const shown = (await t.app.inject({ method: 'GET', url: `/agents/${id}`, headers: { accept: 'text/html' } })).body;
    expect(shown).toContain('pseudonym42');
    expect(shown).not.toContain('jane.private.doe');

    const long = await web.submit(`/account/agents/${id}/owner-handle`, { owner_handle: 'x'.repeat(101) });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('renamed-owner: owner_handle must be at most 100 characters');
    const detail = async () =>
      (await t.app.inject({ method: 'GET', url: `/api/agents/${id}`, headers: owner.auth })).json().owner_handle;
    expect(await detail()).toBe('pseudonym42');

    expect((await web.submit(`/account/agents/${id}/owner-handle`, { owner_handle: '' })).statusCode).toBe(303);
    expect(await detail()).toBe(email.split('@')[0]);
  });

  it("is 404 for another account's agent, which keeps its name", async () => {
    const { web } = await ownerWithEmail(`someone${Date.now() % 100000}@example.org`);
    const other = await register(t.app);
    const { id } = (await create(other, { name: 'not-yours', owner_handle: 'kept' })).json();
    expect((await web.submit(`/account/agents/${id}/owner-handle`, { owner_handle: 'stolen' })).statusCode).toBe(404);
    const detail = await t.app.inject({ method: 'GET', url: `/api/agents/${id}`, headers: other.auth });
    expect(detail.json().owner_handle).toBe('kept');
  });
});
