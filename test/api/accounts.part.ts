import { hashToken } from '../../domain/credentials';
import { register, startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ ARENA_REGISTER_RATE_LIMIT: '5' }, { pastTheGym: false });
});
afterAll(() => t.close());

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/;

describe('POST /api/register', () => {
  it('creates an account with a key shown once and stored only as its SHA-256', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/register', remoteAddress: '10.9.0.1' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.api_key).toMatch(/^arena_[A-Za-z0-9_-]{43}$/);
    expect(body.username).toMatch(/^user-[0-9a-f]{8}$/);
    expect(body.message).toMatch(/shown only once/);
    const rows = await t.orm.em.getConnection().execute<{ key_hash: string }[]>('select key_hash from api_keys');
    expect(JSON.stringify(rows)).not.toContain(body.api_key);
    expect(rows.map((r: { key_hash: string }) => r.key_hash)).toContain(hashToken(body.api_key));
    const [user] = await t.orm.em
      .getConnection()
      .execute('select registration_ip from users where id = ?', [body.user_id]);
    expect(user?.registration_ip).toBe('10.9.0.1');
  });

  it('ignores any body sent with it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/register',
      payload: { username: 'chosen' },
      remoteAddress: '10.9.0.2',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().username).toMatch(/^user-/);
  });

  it('limits registrations per client address with 429 and Retry-After', async () => {
    const ip = '10.9.9.9';
    for (let i = 0; i < 5; i++) {
      expect((await t.app.inject({ method: 'POST', url: '/api/register', remoteAddress: ip })).statusCode).toBe(201);
    }
    const [{ n: before }] = await t.orm.em
      .getConnection()
      .execute<[{ n: number }]>('select count(*)::int as n from users');
    const limited = await t.app.inject({ method: 'POST', url: '/api/register', remoteAddress: ip });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json().detail).toMatch(/rate limit/);
    const [{ n: after }] = await t.orm.em
      .getConnection()
      .execute<[{ n: number }]>('select count(*)::int as n from users');
    expect(after).toBe(before);
    // Another address is not affected.
    expect((await t.app.inject({ method: 'POST', url: '/api/register', remoteAddress: '10.9.9.10' })).statusCode).toBe(
      201,
    );
  });
});

describe('GET /api/account', () => {
  it('returns the account with agent summaries and zone-less timestamps', async () => {
    const me = await register(t.app);
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: me.auth,
      payload: { name: 'puller', mode: 'pull' },
    });
    const res = await t.app.inject({ method: 'GET', url: '/api/account', headers: me.auth });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      id: me.userId,
      username: me.username,
      display_name: null,
      email: null,
      bio: null,
      agent_count: 1,
    });
    expect(body.created_at).toMatch(TIMESTAMP);
    expect(body.agents).toEqual([
      { id: expect.any(Number), name: 'puller', active: true, elo: 1500, gym_complete: false },
    ]);
  });

  it.each([
    ['no header', {}, /missing Authorization/],
    ['another scheme', { authorization: 'Basic abc' }, /malformed Authorization/],
    ['an unknown key', { authorization: `Bearer arena_${'A'.repeat(43)}` }, /invalid API key/],
    ['a malformed key', { authorization: 'Bearer nonsense' }, /invalid API key/],
  ])('answers 401 with WWW-Authenticate for %s', async (_label, headers, detail) => {
    const res = await t.app.inject({ method: 'GET', url: '/api/account', headers });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.json().detail).toMatch(detail);
  });
});

describe('PATCH /api/account', () => {
  it('updates given fields and leaves omitted ones untouched', async () => {
    const me = await register(t.app);
    let res = await t.app.inject({
      method: 'PATCH',
      url: '/api/account',
      headers: me.auth,
      payload: { display_name: 'Ada', bio: 'builds agents' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ display_name: 'Ada', bio: 'builds agents', username: me.username });
    res = await t.app.inject({
      method: 'PATCH',
      url: '/api/account',
      headers: me.auth,
      payload: { bio: 'still building' },
    });
    expect(res.json()).toMatchObject({ display_name: 'Ada', bio: 'still building' });
    res = await t.app.inject({
      method: 'PATCH',
      url: '/api/account',
      headers: me.auth,
      payload: { display_name: null },
    });
    expect(res.json()).toMatchObject({ display_name: null, bio: 'still building' });
  });

  it('stores usernames lowercase and refuses taken ones case-insensitively with 409', async () => {
    const a = await register(t.app);
    const b = await register(t.app);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/account',
      headers: a.auth,
      payload: { username: 'Grace_Hopper' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().username).toBe('grace_hopper');
    const taken = await t.app.inject({
      method: 'PATCH',
      url: '/api/account',
      headers: b.auth,
      payload: { username: 'GRACE_HOPPER' },
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().detail).toMatch(/already taken/);
    const still = await t.app.inject({ method: 'GET', url: '/api/account', headers: b.auth });
    expect(still.json().username).toBe(b.username);
  });

  it.each(['ab', '-leading', '_leading', 'has space', 'émile', 'x'.repeat(33), ''])(
    'refuses the invalid username %j with 400',
    async (username) => {
      const me = await register(t.app);
      const res = await t.app.inject({ method: 'PATCH', url: '/api/account', headers: me.auth, payload: { username } });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatch(/username/);
      const after = await t.app.inject({ method: 'GET', url: '/api/account', headers: me.auth });
      expect(after.json().username).toBe(me.username);
    },
  );

  it('refuses wrong types with a 400 that names the field, changing nothing', async () => {
    const me = await register(t.app);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/account',
      headers: me.auth,
      payload: { bio: 42, display_name: 'Kept?' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/bio/);
    const after = await t.app.inject({ method: 'GET', url: '/api/account', headers: me.auth });
    expect(after.json().display_name).toBeNull();
  });
});
