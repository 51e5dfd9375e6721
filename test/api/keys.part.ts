import { hashToken } from '../../domain/credentials';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/;
const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });
const keysOf = (me: Registered) => t.app.inject({ method: 'GET', url: '/api/keys', headers: me.auth });
const issue = (me: Registered) => t.app.inject({ method: 'POST', url: '/api/keys', headers: me.auth });
const revoke = (apiKey: string, id: number | string) =>
  t.app.inject({ method: 'DELETE', url: `/api/keys/${id}`, headers: bearer(apiKey) });

describe('GET /api/keys', () => {
  it("lists the caller's own keys with their prefix and times, never the key or its hash", async () => {
    const me = await register(t.app);
    const stranger = await register(t.app);
    const second = issue(me);
    const issued = (await second).json();
    const res = await keysOf(me);
    expect(res.statusCode).toBe(200);
    const keys = res.json();
    expect(keys).toEqual([
      {
        id: expect.any(Number),
        prefix: me.apiKey.slice(0, 10),
        created_at: expect.stringMatching(TIMESTAMP),
        last_used_at: expect.stringMatching(TIMESTAMP),
      },
      { id: issued.id, prefix: issued.api_key.slice(0, 10), created_at: issued.created_at, last_used_at: null },
    ]);
    expect(keys[0].prefix).toMatch(/^arena_[A-Za-z0-9_-]{4}$/);
    for (const secret of [
      me.apiKey,
      issued.api_key,
      hashToken(me.apiKey),
      hashToken(issued.api_key),
      stranger.apiKey.slice(0, 10),
    ]) {
      expect(res.body).not.toContain(secret);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/keys' })).statusCode).toBe(401);
  });
});

describe('POST /api/keys', () => {
  it('issues another key for the account, shown once and stored only as its SHA-256', async () => {
    const me = await register(t.app);
    const res = await issue(me);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      id: expect.any(Number),
      prefix: body.api_key.slice(0, 10),
      created_at: expect.stringMatching(TIMESTAMP),
      last_used_at: null,
    });
    expect(body.api_key).toMatch(/^arena_[A-Za-z0-9_-]{43}$/);
    expect(body.message).toMatch(/shown only once/);
    expect((await t.app.inject({ method: 'GET', url: '/api/account', headers: bearer(body.api_key) })).json().id).toBe(
      me.userId,
    );
    const rows = await t.orm.em
      .fork()
      .getConnection()
      .execute<{ key_hash: string }[]>('select key_hash from api_keys where id = ?', [body.id]);
    expect(rows).toEqual([{ key_hash: hashToken(body.api_key) }]);
  });

  it('is limited per account per minute, with 429 and Retry-After, and other accounts keep theirs', async () => {
    const me = await register(t.app);
    for (let i = 0; i < 5; i++) expect((await issue(me)).statusCode).toBe(201);
    const limited = await issue(me);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json().detail).toMatch(/rate limit/);
    expect((await keysOf(me)).json()).toHaveLength(6);
    expect((await issue(await register(t.app))).statusCode).toBe(201);
  });
});

describe('DELETE /api/keys/{id}', () => {
  it('revokes a key: it is refused at once, the others keep working', async () => {
    const me = await register(t.app);
    const spare = (await issue(me)).json();
    const res = await revoke(me.apiKey, spare.id);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const refused = await t.app.inject({ method: 'GET', url: '/api/account', headers: bearer(spare.api_key) });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().detail).toBe('invalid API key');
    expect((await keysOf(me)).json().map((k: { prefix: string }) => k.prefix)).toEqual([me.apiKey.slice(0, 10)]);
    expect((await revoke(me.apiKey, spare.id)).statusCode).toBe(404);
  });

  it('revokes the very key that makes the call, which gets 401 on its next request', async () => {
    const me = await register(t.app);
    const [own] = (await keysOf(me)).json();
    expect((await revoke(me.apiKey, own.id)).statusCode).toBe(204);
    expect((await keysOf(me)).statusCode).toBe(401);
  });

  it("answers 404 for another account's key, as for a missing one, and revokes nothing", async () => {
    const me = await register(t.app);
    const victim = await register(t.app);
    const [theirs] = (await keysOf(victim)).json();
    const res = await revoke(me.apiKey, theirs.id);
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toBe('API key not found');
    expect((await revoke(me.apiKey, 2147483647)).json().detail).toBe('API key not found');
    expect((await keysOf(victim)).statusCode).toBe(200);
    const bad = await revoke(me.apiKey, 'abc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/\bid\b/);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/keys/${theirs.id}` })).statusCode).toBe(401);
  });
});
