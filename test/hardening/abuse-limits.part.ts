import { answer, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { WebClient } from '../web/support';

let t: TestApp;
let agents: TestAgentServer;
let owner: Registered;
const refusals: Record<string, number> = {};

beforeAll(async () => {
  t = await startTestApp(
    {
      ARENA_REGISTER_RATE_LIMIT: '3',
      ARENA_LOGIN_RATE_LIMIT: '3',
      ARENA_VOTE_RATE_LIMIT: '2',
      ARENA_SANDBOX_RATE_LIMIT: '2',
      ARENA_BATTLE_RATE_LIMIT: '1',
      ARENA_WORK_POLL_RATE_LIMIT: '3',
      ARENA_MAX_AGENTS_PER_ACCOUNT: '2',
      ARENA_PING_RATE_LIMIT: '3',
      ARENA_GYM_RESTART_RATE_LIMIT: '1',
    },
    { pastTheGym: false },
  );
  agents = await startAgentServer((req, res) => {
    const { prompt } = JSON.parse(req.body);
    answer(200, { response: prompt === 'long' ? 'x'.repeat(100_001) : 'fine' })(req, res);
  });
  await t.startWorker();
  owner = await register(t.app);
}, 60_000);
afterAll(async () => {
  console.log(
    `abuse limits: ${Object.entries(refusals)
      .map(([what, n]) => `${what} ${n}`)
      .join(', ')} requests refused`,
  );
  await agents.close();
  await t.close();
});

function expectLimited(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  what: string,
): void {
  expect(res.statusCode).toBe(429);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  refusals[what] = (refusals[what] ?? 0) + 1;
}

const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}, payload?: object) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

it('limits registrations per address, and says when to come back', async () => {
  const ip = '10.9.9.9';
  for (let i = 0; i < 3; i++)
    expect((await t.app.inject({ method: 'POST', url: '/api/register', remoteAddress: ip })).statusCode).toBe(201);
  const again = await t.app.inject({ method: 'POST', url: '/api/register', remoteAddress: ip });
  expectLimited(again, 'register');
  // The wait is the window's time left, rounded: a second into the window it reads 60 minutes.
  expect(again.json().detail).toMatch(
    /^rate limit exceeded: at most 3 requests per 1 hour; retry in (1 hour|60 minutes)$/,
  );
  // 20 minutes into the window, the budget is still 3 an hour; the wait is what is left of it.
  await t.orm.em
    .fork()
    .getConnection()
    .execute(`update rate_limit_budgets set resets_at = resets_at - interval '20 minutes' where key = ?`, [
      `register:ip:${ip}`,
    ]);
  const later = await t.app.inject({ method: 'POST', url: '/api/register', remoteAddress: ip });
  expectLimited(later, 'register');
  expect(later.json().detail).toBe('rate limit exceeded: at most 3 requests per 1 hour; retry in 40 minutes');
  expect((await t.app.inject({ method: 'POST', url: '/api/register', remoteAddress: '10.9.9.10' })).statusCode).toBe(
    201,
  );
});

it('limits website log-in attempts per address', async () => {
  const person = new WebClient(t.app, '10.8.8.8');
  for (let i = 0; i < 3; i++)
    expect(
      (await person.submit('/login', { email: 'nobody@example.org', password: 'wrong password!' })).statusCode,
    ).toBe(401);
  const refused = await person.submit('/login', { email: 'nobody@example.org', password: 'wrong password!' });
  expectLimited(refused, 'login');
  expect(refused.headers['content-type']).toMatch(/^text\/html/);
});

it('limits votes, sandbox tasks and live battles per account, not per address, and others keep theirs', async () => {
  const agent = (await inject('POST', '/api/agents', owner.auth, { name: 'limited', webhook_url: agents.url })).json();
  for (let i = 0; i < 2; i++)
    expect(
      (await inject('POST', `/api/agents/${agent.id}/sandbox`, owner.auth, { prompt: `task ${i}` })).statusCode,
    ).toBe(202);
  expectLimited(
    await inject('POST', `/api/agents/${agent.id}/sandbox`, owner.auth, { prompt: 'one too many' }),
    'sandbox',
  );
  // The same account from another address is the same account.
  const elsewhere = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/sandbox`,
    headers: owner.auth,
    payload: { prompt: 'from elsewhere' },
    remoteAddress: '10.7.7.7',
  });
  expectLimited(elsewhere, 'sandbox');

  for (let i = 0; i < 2; i++)
    expect((await inject('POST', `/api/judge/${900_000 + i}/vote`, owner.auth, { winner: 'a' })).statusCode).toBe(404);
  expectLimited(await inject('POST', '/api/judge/900009/vote', owner.auth, { winner: 'a' }), 'vote');

  expect((await inject('POST', '/api/battles', owner.auth, { prompt: 'who is there?' })).statusCode).toBe(409);
  expectLimited(await inject('POST', '/api/battles', owner.auth, { prompt: 'again?' }), 'battle');

  const other = await register(t.app);
  expect((await inject('POST', '/api/judge/900010/vote', other.auth, { winner: 'b' })).statusCode).toBe(404);
  expect((await inject('POST', '/api/battles', other.auth, { prompt: 'me?' })).statusCode).toBe(409);
});

it('limits a pull agent’s work/next calls per agent, counting only calls with its secret', async () => {
  const puller = (await inject('POST', '/api/agents', owner.auth, { name: 'poller', mode: 'pull' })).json();
  // Someone hammering with a wrong secret gets 403s and does not use up the runner's budget.
  for (let i = 0; i < 10; i++)
    expect(
      (await inject('GET', `/api/agents/${puller.id}/work/next`, { 'x-arena-secret': 'agsec_wrong' })).statusCode,
    ).toBe(403);
  const secret = { 'x-arena-secret': puller.webhook_secret };
  for (let i = 0; i < 3; i++)
    expect([200, 204]).toContain((await inject('GET', `/api/agents/${puller.id}/work/next`, secret)).statusCode);
  const refused = await inject('GET', `/api/agents/${puller.id}/work/next`, secret);
  expectLimited(refused, 'work/next');
  expect(refused.json().detail).toMatch(/rate limit exceeded/);
});

it('limits the pings an account causes (new push agents, retests, new webhook URLs) and its gym restarts', async () => {
  const me = await register(t.app);
  const pusher = (await inject('POST', '/api/agents', me.auth, { name: 'pinged', webhook_url: agents.url })).json();
  expect((await inject('POST', `/api/agents/${pusher.id}/retest`, me.auth)).statusCode).toBe(200);
  const changed = await t.app.inject({
    method: 'PATCH',
    url: `/api/agents/${pusher.id}`,
    headers: me.auth,
    payload: { webhook_url: `${agents.url}?v=2` },
  });
  expect(changed.statusCode).toBe(200);
  const refused = await inject('POST', `/api/agents/${pusher.id}/retest`, me.auth);
  expectLimited(refused, 'retest');
  expect(refused.json().detail).toMatch(/^rate limit exceeded: at most 3 requests per 1 minute/);
  expectLimited(
    await t.app.inject({
      method: 'PATCH',
      url: `/api/agents/${pusher.id}`,
      headers: me.auth,
      payload: { webhook_url: `${agents.url}?v=3` },
    }),
    'webhook URL change',
  );
  // Nothing of a refused edit is kept; an edit that pings nobody is not counted.
  const renamed = await t.app.inject({
    method: 'PATCH',
    url: `/api/agents/${pusher.id}`,
    headers: me.auth,
    payload: { name: 'renamed', webhook_url: `${agents.url}?v=2` },
  });
  expect(renamed.statusCode).toBe(200);
  expect(renamed.json()).toMatchObject({ name: 'renamed', webhook_url: `${agents.url}?v=2` });
  // Making push agents pings them too, so creating and deactivating cannot go round the limit.
  expectLimited(
    await inject('POST', '/api/agents', me.auth, { name: 'another', webhook_url: agents.url }),
    'push agent creation',
  );
  expect((await inject('POST', '/api/agents', me.auth, { name: 'puller', mode: 'pull' })).statusCode).toBe(201);

  expect((await inject('POST', `/api/agents/${pusher.id}/gym/restart`, me.auth)).statusCode).toBe(200);
  const restart = await inject('POST', `/api/agents/${pusher.id}/gym/restart`, me.auth);
  expectLimited(restart, 'gym restart');
  expect(restart.json().detail).toMatch(/^rate limit exceeded: at most 1 requests per 1 hour/);
  // Others keep theirs.
  const other = await register(t.app);
  const theirs = (await inject('POST', '/api/agents', other.auth, { name: 'theirs', webhook_url: agents.url })).json();
  expect((await inject('POST', `/api/agents/${theirs.id}/retest`, other.auth)).statusCode).toBe(200);
});

it('limits the agents an account may have, counting only those not deactivated', async () => {
  const me = await register(t.app);
  const create = (name: string) => inject('POST', '/api/agents', me.auth, { name, mode: 'pull' });
  const first = (await create('one')).json();
  expect((await create('two')).statusCode).toBe(201);
  const third = await create('three');
  expect(third.statusCode).toBe(409);
  expect(third.json()).toEqual({
    detail: 'an account may have at most 2 agents that are not deactivated; deactivate one first',
  });
  refusals.agents = 1;
  expect(
    (
      await t.orm.em
        .fork()
        .getConnection()
        .execute<[{ n: number }]>(`select count(*)::int as n from agents where owner_id = ?`, [me.userId])
    )[0].n,
  ).toBe(2);
  await inject('POST', `/api/agents/${first.id}/deactivate`, me.auth);
  expect((await create('three')).statusCode).toBe(201);
});

it('refuses bodies over 1 MiB with 413 on the API and the website', async () => {
  const huge = { name: 'x', description: 'y'.repeat(1_100_000) };
  const api = await inject('POST', '/api/agents', owner.auth, huge);
  expect(api.statusCode).toBe(413);
  expect(api.json()).toEqual({ detail: 'request body is too large' });
  const web = await t.app.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: `email=${'a'.repeat(1_100_000)}`,
  });
  expect(web.statusCode).toBe(413);
  refusals['oversized bodies'] = 2;
});

it('records an answer over 100,000 characters as an error on push, and refuses it with 400 on pull without recording anything', async () => {
  const me = await register(t.app);
  const pusher = (await inject('POST', '/api/agents', me.auth, { name: 'verbose', webhook_url: agents.url })).json();
  const task = (await inject('POST', `/api/agents/${pusher.id}/sandbox`, me.auth, { prompt: 'long' })).json();
  const client = new (await import('@temporalio/client')).Client({
    connection: t.temporal,
    namespace: t.config.temporalNamespace,
  });
  expect(await client.workflow.getHandle(`delivery-${task.id.split('-')[1]}`).result()).toEqual({ status: 'error' });
  const feed = (await inject('GET', `/api/agents/${pusher.id}/activity`)).json();
  expect(feed.sessions.find((s: { id: string }) => s.id === task.id)).toMatchObject({
    status: 'error',
    response: null,
    error: "the webhook's response is longer than 100000 characters",
  });

  const puller = (await inject('POST', '/api/agents', me.auth, { name: 'verbose-puller', mode: 'pull' })).json();
  const secret = { 'x-arena-secret': puller.webhook_secret };
  const work = (await inject('GET', `/api/agents/${puller.id}/work/next?wait=10`, secret)).json();
  const tooLong = await inject('POST', `/api/agents/${puller.id}/work/${work.work_id}/result`, secret, {
    response: 'x'.repeat(100_001),
  });
  expect(tooLong.statusCode).toBe(400);
  expect(tooLong.json().detail).toBe('response must be at most 100000 characters');
  const [row] = await t.orm.em
    .fork()
    .getConnection()
    .execute(`select status from sessions where id = ?`, [Number(work.work_id.split('-')[1])]);
  expect(row?.status).toBe('pending');
  refusals['over-long answers'] = 2;
});
