/**
 * One budget per action and account (or client address): the API and the website spend the same
 * one, every API process counts it in PostgreSQL, and an IPv6 client counts by its /64.
 */
import { randomBytes } from 'node:crypto';
import { ApiKey } from '../../infra/db/entities/api-key.entity';
import { User } from '../../infra/db/entities/user.entity';
import { hashToken, newApiKey } from '../../domain/credentials';
import { createTestDatabase, type TestDatabase } from '../support/test-db';
import { startTestApp, type TestApp } from '../support/test-app';
import { WebClient } from '../web/support';
import { eventually } from '../support/wait';

let db: TestDatabase;
let one: TestApp;
let two: TestApp;
let people = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  // Two API processes on one database, as behind a load balancer (same key, so a sign-in works on both).
  const env = {
    ARENA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ARENA_REGISTER_RATE_LIMIT: '2',
    ARENA_VOTE_RATE_LIMIT: '2',
    ARENA_SANDBOX_RATE_LIMIT: '2',
    ARENA_BATTLE_RATE_LIMIT: '1',
  };
  one = await startTestApp(env, { databaseUrl: db.url });
  two = await startTestApp(env, { databaseUrl: db.url });
}, 60_000);
afterAll(async () => {
  await one?.close();
  await two?.close();
  await db?.drop();
});

/** A person signed in on the website of `app`, with an API key for the same account. */
async function person(app: TestApp, ip: string): Promise<{ web: WebClient; api: { authorization: string } }> {
  const web = new WebClient(app.app, ip);
  const name = `budget${++people}${randomBytes(2).toString('hex')}`;
  await web.signUp(name);
  const em = app.orm.em.fork();
  const user = await em.findOneOrFail(User, { username: name });
  const apiKey = newApiKey();
  em.create(ApiKey, { user, keyHash: hashToken(apiKey) });
  await em.flush();
  return { web, api: { authorization: `Bearer ${apiKey}` } };
}

const status = (res: { statusCode: number }) => res.statusCode;

it('gives the API and the website one budget per action and account', async () => {
  const me = await person(one, '10.40.0.1');
  const api = (method: 'POST', url: string, payload: object) =>
    one.app.inject({ method, url, headers: me.api, payload });

  // Votes on battles that do not exist still spend the budget (it is checked before the battle is looked up).
  expect(status(await api('POST', '/api/judge/990001/vote', { winner: 'a' }))).toBe(404);
  expect(status(await me.web.submit('/battle/990002/vote', { winner: 'b' }))).toBe(404);
  expect(status(await api('POST', '/api/judge/990003/vote', { winner: 'a' }))).toBe(429);
  expect(status(await me.web.submit('/battle/990004/vote', { winner: 'a' }))).toBe(429);

  expect(status(await api('POST', '/api/agents/990001/sandbox', { prompt: 'hello' }))).toBe(404);
  expect(status(await me.web.submit('/account/agents/990001/sandbox', { prompt: 'hello' }))).toBe(404);
  expect(status(await me.web.submit('/account/agents/990001/sandbox', { prompt: 'again' }))).toBe(429);
  expect(status(await api('POST', '/api/agents/990001/sandbox', { prompt: 'again' }))).toBe(429);

  // No agents in this arena: a battle is refused with 409, and that spends the one allowed.
  expect(status(await me.web.submit('/battle', { prompt: 'who is there?' }))).toBe(409);
  expect(status(await api('POST', '/api/battles', { prompt: 'anyone?' }))).toBe(429);
}, 60_000);

it('gives /api/register and the website’s sign-up one budget per address', async () => {
  const ip = '10.40.1.1';
  expect(status(await one.app.inject({ method: 'POST', url: '/api/register', remoteAddress: ip }))).toBe(201);
  const web = new WebClient(one.app, ip);
  await web.signUp(`signup${randomBytes(3).toString('hex')}`);
  expect(status(await one.app.inject({ method: 'POST', url: '/api/register', remoteAddress: ip }))).toBe(429);
  const again = await web.submit('/signup', {
    email: `x${randomBytes(3).toString('hex')}@example.org`,
    username: `x${randomBytes(3).toString('hex')}`,
    password: 'a long enough password',
  });
  expect(again.statusCode).toBe(429);
}, 60_000);

it('shares every budget between API processes', async () => {
  const me = await person(one, '10.40.2.1');
  const vote = (t: TestApp, battle: number) =>
    t.app.inject({ method: 'POST', url: `/api/judge/${battle}/vote`, headers: me.api, payload: { winner: 'a' } });
  expect(status(await vote(one, 990011))).toBe(404);
  expect(status(await vote(two, 990012))).toBe(404);
  expect(status(await vote(one, 990013))).toBe(429);
  expect(status(await vote(two, 990014))).toBe(429);

  const register = (t: TestApp) => t.app.inject({ method: 'POST', url: '/api/register', remoteAddress: '10.40.2.2' });
  expect(status(await register(one))).toBe(201);
  expect(status(await register(two))).toBe(201);
  const refused = await register(one);
  expect(refused.statusCode).toBe(429);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
  expect(status(await register(two))).toBe(429);
}, 60_000);

it('counts an IPv6 client by its /64', async () => {
  const register = (ip: string) => one.app.inject({ method: 'POST', url: '/api/register', remoteAddress: ip });
  expect(status(await register('2001:db8:40:1::1'))).toBe(201);
  expect(status(await register('2001:db8:40:1:ffff:ffff:ffff:fffe'))).toBe(201);
  expect(status(await register('2001:db8:40:1::9'))).toBe(429);
  expect(status(await register('2001:db8:40:2::1'))).toBe(201);
}, 60_000);

it('starts a budget afresh when its window has passed, and clears budgets that ended', async () => {
  const me = await person(one, '10.40.3.1');
  const vote = (battle: number) =>
    one.app.inject({ method: 'POST', url: `/api/judge/${battle}/vote`, headers: me.api, payload: { winner: 'a' } });
  expect(status(await vote(990021))).toBe(404);
  expect(status(await vote(990022))).toBe(404);
  expect(status(await vote(990023))).toBe(429);
  const sql = (query: string) => one.orm.em.fork().getConnection().execute(query);
  // The window ends (as a minute passing would do it).
  await sql(`update rate_limit_budgets set resets_at = now() - interval '1 second' where key like 'vote:%'`);
  expect(status(await vote(990024))).toBe(404);

  // A budget that ended long ago is deleted by the next process that counts something.
  await sql(
    `insert into rate_limit_budgets (key, used, resets_at) values ('vote:account:0', 5, now() - interval '1 hour')`,
  );
  const fresh = await startTestApp({ ARENA_VOTE_RATE_LIMIT: '2' }, { databaseUrl: db.url });
  try {
    expect(status(await fresh.app.inject({ method: 'POST', url: '/api/register', remoteAddress: '10.40.3.2' }))).toBe(
      201,
    );
    await eventually(
      async () =>
        (await sql(`select 1 from rate_limit_budgets where key = 'vote:account:0'`)).length === 0 ? true : undefined,
      'the ended budget to be cleared',
    );
  } finally {
    await fresh.close();
  }
}, 60_000);
