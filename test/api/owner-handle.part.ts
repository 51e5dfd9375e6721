/**
 * One owner name per person: an agent's public owner name is its account's name (the display name,
 * else the username, never the email) unless the agent was given one of its own on purpose. The
 * owner is told at creation what it is and where it came from, and every page names a person the
 * same way.
 */
import { OWNER_HANDLES_FOLLOW, OWNER_HANDLES_OWN } from '../../infra/db/migrations/Migration20261129040000';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { WebClient } from '../web/support';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const create = (who: Registered, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/agents', headers: who.auth, payload: { mode: 'pull', ...payload } });
const editAccount = (who: Registered, payload: object) =>
  t.app.inject({ method: 'PATCH', url: '/api/account', headers: who.auth, payload });
const ownerNameOf = async (who: Registered, id: number): Promise<string> =>
  (await t.app.inject({ method: 'GET', url: `/api/agents/${id}`, headers: who.auth })).json().owner_handle;
const html = async (url: string) => (await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } })).body;
const sql = <T = Record<string, unknown>>(q: string, p: unknown[] = []) => t.orm.em.getConnection().execute<T[]>(q, p);

/** An account with this email and a password, made through the API, signed in on the website. */
async function ownerWithEmail(email: string): Promise<{ owner: Registered; web: WebClient }> {
  const owner = await register(t.app);
  await editAccount(owner, { email });
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
  it('names the owner by the account: its username while it has no display name, never its email', async () => {
    const { owner } = await ownerWithEmail(`jane.private.doe${Date.now() % 100000}@example.com`);
    const res = await create(owner, { name: 'named-from-account' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.owner_handle).toBe(owner.username);
    expect(body.owner_handle_note).toBe(
      `"${owner.username}" is shown publicly as this agent's owner (on its page, the leaderboard and after votes), your username (you have no display name). ` +
        `Your display name (PATCH /api/account {"display_name": "..."}) names you on every agent without a name of its own; ` +
        `PATCH /api/agents/${body.id} {"owner_handle": "..."} gives this one its own, and null makes it follow your account again.`,
    );
  });

  it("says so for a name the owner chose, and for the account's display name", async () => {
    const owner = await register(t.app);
    const chosen = (await create(owner, { name: 'chosen', owner_handle: 'pseudonym42' })).json();
    expect(chosen.owner_handle).toBe('pseudonym42');
    expect(chosen.owner_handle_note).toMatch(/^"pseudonym42" is shown publicly .*, this agent's own name for you\. /);
    expect((await editAccount(owner, { display_name: 'Jane Doe' })).statusCode).toBe(200);
    const named = (await create(owner, { name: 'named' })).json();
    expect(named.owner_handle).toBe('Jane Doe');
    expect(named.owner_handle_note).toMatch(/^"Jane Doe" is shown publicly .*, your display name\. /);
  });
});

describe("the account's name", () => {
  it('moves every agent without a name of its own, and every page names the person the same way', async () => {
    const owner = await register(t.app);
    const first = (await create(owner, { name: 'first' })).json().id;
    const second = (await create(owner, { name: 'second' })).json().id;
    const own = (await create(owner, { name: 'own', owner_handle: 'a pen name' })).json().id;
    // Given the account's own name, an agent follows it rather than keeping a copy.
    const same = (await create(owner, { name: 'same', owner_handle: owner.username })).json().id;

    expect((await editAccount(owner, { display_name: 'Newcomer' })).statusCode).toBe(200);
    for (const id of [first, second, same]) expect(await ownerNameOf(owner, id)).toBe('Newcomer');
    expect(await ownerNameOf(owner, own)).toBe('a pen name');
    expect(await html(`/agents/${first}`)).toContain('Newcomer');
    expect(await html(`/users/${owner.userId}`)).toContain('<h1>Newcomer</h1>');

    // Cleared, the username names the person again, on the agents and the page alike.
    expect((await editAccount(owner, { display_name: null })).statusCode).toBe(200);
    expect(await ownerNameOf(owner, first)).toBe(owner.username);
    expect(await html(`/users/${owner.userId}`)).toContain(`<h1>${owner.username}</h1>`);
    const renamed = `renamed${Date.now() % 100000}`;
    expect((await editAccount(owner, { username: renamed })).statusCode).toBe(200);
    expect(await ownerNameOf(owner, second)).toBe(renamed);

    // An agent with its own name follows the account again when its name is cleared.
    const cleared = await t.app.inject({
      method: 'PATCH',
      url: `/api/agents/${own}`,
      headers: owner.auth,
      payload: { owner_handle: null },
    });
    expect(cleared.statusCode).toBe(200);
    expect(await ownerNameOf(owner, own)).toBe(renamed);
  });

  it('moves nothing when the account edit is refused', async () => {
    const taken = await register(t.app);
    const owner = await register(t.app);
    const id = (await create(owner, { name: 'kept' })).json().id;
    const res = await editAccount(owner, { display_name: 'Never Shown', username: taken.username });
    expect(res.statusCode).toBe(409);
    expect(await ownerNameOf(owner, id)).toBe(owner.username);
    const [row] = await sql<{ owner_handle: string }>(`select owner_handle from agents where id = ?`, [id]);
    expect(row!.owner_handle).toBe(owner.username);
  });

  it("never moves another account's agents", async () => {
    const owner = await register(t.app);
    const other = await register(t.app);
    const theirs = (await create(other, { name: 'theirs' })).json().id;
    expect((await editAccount(owner, { display_name: 'Somebody Else' })).statusCode).toBe(200);
    expect(await ownerNameOf(other, theirs)).toBe(other.username);
  });
});

describe("the account page's owner name", () => {
  it("is empty while the agent follows the account; a name makes it the agent's own, empty follows again; too long is refused", async () => {
    const email = `jane.private.doe${(Date.now() + 7) % 100000}@example.com`;
    const { owner, web } = await ownerWithEmail(email);
    const { id } = (await create(owner, { name: 'renamed-owner' })).json();
    const page = (await web.request({ method: 'GET', url: '/account', headers: { accept: 'text/html' } })).body;
    expect(page).toContain(`action="/account/agents/${id}/owner-handle"`);
    expect(page).toContain(`(empty: your public name, ${owner.username})`);
    expect(page).toContain(`name="owner_handle" value="" maxlength="100" placeholder="${owner.username}"`);

    const saved = await web.submit(`/account/agents/${id}/owner-handle`, { owner_handle: 'pseudonym42' });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/account?done=owner-handle#agent-${id}`);
    const shown = await html(`/agents/${id}`);
    expect(shown).toContain('pseudonym42');
    expect(shown).not.toContain('jane.private.doe');
    const again = (await web.request({ method: 'GET', url: '/account', headers: { accept: 'text/html' } })).body;
    expect(again).toContain('name="owner_handle" value="pseudonym42"');

    const long = await web.submit(`/account/agents/${id}/owner-handle`, { owner_handle: 'x'.repeat(101) });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('renamed-owner: owner_handle must be at most 100 characters');
    expect(await ownerNameOf(owner, id)).toBe('pseudonym42');

    expect((await web.submit(`/account/agents/${id}/owner-handle`, { owner_handle: '' })).statusCode).toBe(303);
    expect(await ownerNameOf(owner, id)).toBe(owner.username);
    // Following again: the profile form's display name now names it.
    const profile = await web.submit('/account/profile', { username: owner.username, display_name: 'Jane', bio: '' });
    expect(profile.statusCode).toBe(303);
    expect(await ownerNameOf(owner, id)).toBe('Jane');
  });

  it("is 404 for another account's agent, which keeps its name", async () => {
    const { web } = await ownerWithEmail(`someone${Date.now() % 100000}@example.org`);
    const other = await register(t.app);
    const { id } = (await create(other, { name: 'not-yours', owner_handle: 'kept' })).json();
    expect((await web.submit(`/account/agents/${id}/owner-handle`, { owner_handle: 'stolen' })).statusCode).toBe(404);
    expect(await ownerNameOf(other, id)).toBe('kept');
  });
});

describe('the migration to one name per account', () => {
  it('makes agents with the old default follow their account, and keeps a name given on purpose', async () => {
    const owner = await register(t.app);
    await editAccount(owner, { email: `migrated${Date.now() % 100000}@example.net`, display_name: 'Migrated Person' });
    const insert = async (handle: string) =>
      (
        await sql<{ id: number }>(
          `insert into agents (owner_id, name, mode, owner_handle, secret_hash, secret_sealed, created_at)
           values (?, 'old', 'pull', ?, 'x', 'x', now()) returning id`,
          [owner.userId, handle],
        )
      )[0]!.id;
    const [email] = await sql<{ email: string }>(`select email from users where id = ?`, [owner.userId]);
    const fromEmail = await insert(email!.email.split('@')[0]!);
    const fromId = await insert(`agent-${owner.userId}`);
    const chosen = await insert('chosen on purpose');
    await sql(`update agents set owner_handle_own = false where owner_id = ?`, [owner.userId]);
    // The migration's statements, on this account's agents only (the others here are already migrated).
    await sql(`${OWNER_HANDLES_OWN} and a.owner_id = ?`, [owner.userId]);
    await sql(`${OWNER_HANDLES_FOLLOW} and a.owner_id = ?`, [owner.userId]);
    const rows = await sql<{ id: number; owner_handle: string; owner_handle_own: boolean }>(
      `select id, owner_handle, owner_handle_own from agents where owner_id = ? order by id`,
      [owner.userId],
    );
    expect(rows).toEqual([
      { id: fromEmail, owner_handle: 'Migrated Person', owner_handle_own: false },
      { id: fromId, owner_handle: 'Migrated Person', owner_handle_own: false },
      { id: chosen, owner_handle: 'chosen on purpose', owner_handle_own: true },
    ]);
  });
});
