import { register, startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ ARENA_REGISTER_RATE_LIMIT: '1000' }, { pastTheGym: false });
});
afterAll(() => t.close());

async function named(username: string, display_name?: string) {
  const me = await register(t.app);
  await t.app.inject({ method: 'PATCH', url: '/api/account', headers: me.auth, payload: { username, display_name } });
  return me;
}

describe('GET /api/users', () => {
  it('searches username and display name case-insensitively, 50 a page, without emails', async () => {
    await named('searchable-one', 'Zed Alpha');
    await named('other', 'SEARCHABLE display');
    await named('unrelated');
    const res = await t.app.inject({ method: 'GET', url: '/api/users?q=SEARCHABLE' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ query: 'SEARCHABLE', page: 1, page_size: 50, total: 2, has_more: false });
    expect(body.users.map((u: { username: string }) => u.username).sort()).toEqual(['other', 'searchable-one']);
    expect(Object.keys(body.users[0]).sort()).toEqual([
      'agent_count',
      'bio',
      'created_at',
      'display_name',
      'id',
      'username',
    ]);
  });

  it('treats LIKE wildcards literally', async () => {
    await named('percent-user');
    const res = await t.app.inject({ method: 'GET', url: '/api/users?q=%25' });
    expect(res.json().total).toBe(0);
  });

  it('pages through results', async () => {
    for (let i = 0; i < 52; i++) await named(`pager-${String(i).padStart(2, '0')}`);
    const first = (await t.app.inject({ method: 'GET', url: '/api/users?q=pager-' })).json();
    expect(first).toMatchObject({ total: 52, has_more: true });
    expect(first.users).toHaveLength(50);
    const second = (await t.app.inject({ method: 'GET', url: '/api/users?q=pager-&page=2' })).json();
    expect(second).toMatchObject({ page: 2, has_more: false });
    expect(second.users.map((u: { username: string }) => u.username)).toEqual(['pager-50', 'pager-51']);
  });

  it.each(['page=0', 'page=-1', 'page=abc', 'page=1.5'])('answers 400 for %s', async (query) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/users?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/page/);
  });
});

describe('GET /api/users/{id}', () => {
  it('shows the public profile with agents and never the email', async () => {
    const me = await named('profiled', 'Pro Filed');
    await t.orm.em.getConnection().execute("update users set email = 'secret@example.com' where id = ?", [me.userId]);
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: me.auth,
      payload: { name: 'runner', mode: 'pull' },
    });
    const res = await t.app.inject({ method: 'GET', url: `/api/users/${me.userId}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('secret@example.com');
    expect(res.json()).toMatchObject({
      id: me.userId,
      username: 'profiled',
      display_name: 'Pro Filed',
      agent_count: 1,
      agents: [
        {
          name: 'runner',
          elo: 1500,
          active: true,
          gym_complete: false,
          profile_url: expect.stringMatching(/^\/agents\/\d+$/),
        },
      ],
    });
  });

  it('answers 404 for an unknown user and 400 for a malformed id', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/users/999999' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/api/users/abc' })).statusCode).toBe(400);
  });
});
