import { RUNNER_VERSION } from '../../infra/runner-package';
import { createHmac } from 'node:crypto';
import { answer, closedPortUrl, hang, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

let t: TestApp;
let agentServer: TestAgentServer;
let owner: Registered;
beforeAll(async () => {
  t = await startTestApp(
    { ARENA_REGISTER_RATE_LIMIT: '1000', ARENA_PING_RATE_LIMIT: '1000' },
    { pingTimeoutMs: 1500, pastTheGym: false },
  );
  agentServer = await startAgentServer();
  owner = await register(t.app);
});
afterAll(async () => {
  await agentServer.close();
  await t.close();
});
beforeEach(() => agentServer.behave(answer()));

const create = (payload: object, auth = owner.auth) =>
  t.app.inject({ method: 'POST', url: '/api/agents', headers: auth, payload });
const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

describe('POST /api/agents', () => {
  it('creates a push agent, pings it with a signed prompt-shaped POST, and shows the secret once', async () => {
    const before = agentServer.received.length;
    const res = await create({
      name: 'pusher',
      webhook_url: agentServer.url,
      model_claimed: 'gpt-x',
      tools_claimed: ['search'],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      name: 'pusher',
      mode: 'push',
      webhook_url: agentServer.url,
      active: true,
      ping_error: null,
    });
    expect(body.webhook_secret).toMatch(/^agsec_[A-Za-z0-9_-]{43}$/);
    // The form the specification gives: a path clients join to the base URL they already use.
    expect(body.profile_url).toBe(`/agents/${body.id}`);
    expect(body.run_command).toBeUndefined();

    const ping = agentServer.received[before]!;
    expect(agentServer.received).toHaveLength(before + 1);
    expect(JSON.parse(ping.body)).toEqual({
      prompt_id: expect.stringMatching(/^ping-\d+$/),
      prompt: 'ping',
      category: 'ping',
      deadline_seconds: 15,
    });
    // The protocol summary agents read on start-up says so: a ping's prompt_id is not an integer.
    const version = (await t.app.inject({ method: 'GET', url: '/api/version' })).json();
    expect(version.prompt_payload).toContain('the connectivity ping\'s is the string "ping-<n>"');
    expect(version.push.request).toContain('"prompt_id": <integer, or "ping-<n>" for a ping>');
    expect(ping.headers['x-arena-signature']).toBe(hmac(body.webhook_secret, ping.body));
    const ts = ping.headers['x-arena-timestamp'] as string;
    expect(ping.headers['x-arena-signature-timestamped']).toBe(hmac(body.webhook_secret, `${ts}.${ping.body}`));

    const stored = await t.orm.em
      .getConnection()
      .execute('select secret_hash, secret_sealed from agents where id = ?', [body.id]);
    expect(JSON.stringify(stored)).not.toContain(body.webhook_secret);
    const detail = await t.app.inject({ method: 'GET', url: `/api/agents/${body.id}`, headers: owner.auth });
    expect(detail.body).not.toContain(body.webhook_secret);
  });

  it('creates a pull agent without a ping, with a run_command naming the agent', async () => {
    const before = agentServer.received.length;
    const res = await create({ name: 'puller', mode: 'pull' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ mode: 'pull', active: true, ping_error: null });
    expect(body.webhook_url).toBeUndefined();
    expect(body.run_command).toBe(
      `npx --yes --package http://arena.test/downloads/arena-runner-${RUNNER_VERSION}.tgz arena-runner run --base-url http://arena.test --agent ${body.id} --secret <AGENT_SECRET> -- <your-agent-command>`,
    );
    expect(agentServer.received).toHaveLength(before);
  });

  it("defaults owner_handle to the account's name (display name, else username), never the email", async () => {
    const withEmail = await register(t.app);
    await t.orm.em
      .getConnection()
      .execute("update users set email = 'ada.l@example.com' where id = ?", [withEmail.userId]);
    const a = (await create({ name: 'a', mode: 'pull' }, withEmail.auth)).json();
    const b = (await create({ name: 'b', mode: 'pull' })).json();
    const c = (await create({ name: 'c', mode: 'pull', owner_handle: 'chosen' })).json();
    const handle = async (id: number, auth: Record<string, string>) =>
      (await t.app.inject({ method: 'GET', url: `/api/agents/${id}`, headers: auth })).json().owner_handle;
    expect(await handle(a.id, withEmail.auth)).toBe(withEmail.username);
    expect(await handle(b.id, owner.auth)).toBe(owner.username);
    expect(await handle(c.id, owner.auth)).toBe('chosen');
  });

  it.each([
    ['a missing name', { webhook_url: 'http://127.0.0.1:1/' }, /^name is required$/],
    ['an empty name', { name: '  ', mode: 'pull' }, /^name must not be empty$/],
    ['push without webhook_url', { name: 'x' }, /^webhook_url is required for push agents$/],
    [
      'pull with webhook_url',
      { name: 'x', mode: 'pull', webhook_url: 'http://127.0.0.1:1/' },
      /must be omitted for pull/,
    ],
    ['an unknown mode', { name: 'x', mode: 'carrier-pigeon' }, /^mode must be push, pull or a2a$/],
    [
      'a description over 500 characters',
      { name: 'x', mode: 'pull', description: 'd'.repeat(501) },
      /^description must be at most 500 characters$/,
    ],
    [
      'tools that are not strings',
      { name: 'x', mode: 'pull', tools_claimed: [1] },
      /^tools_claimed\.0 must be a string$/,
    ],
    [
      'a non-http webhook',
      { name: 'x', webhook_url: 'ftp://example.com/' },
      /^webhook_url must be an http or https URL/,
    ],
    ['a garbage webhook', { name: 'x', webhook_url: 'not a url' }, /^webhook_url must be an http or https URL/],
  ])('answers 400 for %s and creates nothing', async (_label, payload, detail) => {
    const [{ n: before }] = await t.orm.em
      .getConnection()
      .execute<[{ n: number }]>('select count(*)::int as n from agents');
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(detail);
    const [{ n: after }] = await t.orm.em
      .getConnection()
      .execute<[{ n: number }]>('select count(*)::int as n from agents');
    expect(after).toBe(before);
  });
});

describe('pings', () => {
  it('records an HTTP error status as ping_error and leaves the agent inactive', async () => {
    agentServer.behave(answer(500, { error: 'boom' }));
    const body = (await create({ name: 'broken', webhook_url: agentServer.url })).json();
    expect(body).toMatchObject({ active: false, ping_error: expect.stringMatching(/HTTP 500/) });
  });

  it('times out a webhook that does not answer', async () => {
    agentServer.behave(hang);
    const body = (await create({ name: 'slow', webhook_url: agentServer.url })).json();
    expect(body).toMatchObject({ active: false, ping_error: expect.stringMatching(/timed out/) });
  });

  it('reports a refused connection', async () => {
    const body = (await create({ name: 'refused', webhook_url: await closedPortUrl() })).json();
    expect(body).toMatchObject({ active: false, ping_error: expect.stringMatching(/refused/) });
  });

  it('a retest that passes makes the agent active; one that fails makes it inactive again', async () => {
    agentServer.behave(answer(503));
    const { id } = (await create({ name: 'flaky', webhook_url: agentServer.url })).json();
    agentServer.behave(answer());
    let res = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/retest`, headers: owner.auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id, active: true, ping_error: null });
    agentServer.behave(answer(404));
    res = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/retest`, headers: owner.auth });
    expect(res.json()).toEqual({ id, active: false, ping_error: expect.stringMatching(/HTTP 404/) });
  });

  it('a changed webhook_url is pinged at once; an unchanged one is not', async () => {
    const { id } = (await create({ name: 'mover', webhook_url: await closedPortUrl() })).json();
    const before = agentServer.received.length;
    let res = await t.app.inject({
      method: 'PATCH',
      url: `/api/agents/${id}`,
      headers: owner.auth,
      payload: { webhook_url: agentServer.url },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ webhook_url: agentServer.url, active: true, ping_error: null });
    expect(agentServer.received).toHaveLength(before + 1);
    res = await t.app.inject({
      method: 'PATCH',
      url: `/api/agents/${id}`,
      headers: owner.auth,
      payload: { webhook_url: agentServer.url, name: 'renamed' },
    });
    expect(res.json()).toMatchObject({ name: 'renamed', active: true });
    expect(agentServer.received).toHaveLength(before + 1);
  });
});

describe('the private-address guard', () => {
  let guarded: TestApp;
  let guardedOwner: Registered;
  beforeAll(async () => {
    guarded = await startTestApp({ ARENA_ALLOW_PRIVATE_WEBHOOKS: 'false' }, { pingTimeoutMs: 1500, pastTheGym: false });
    guardedOwner = await register(guarded.app);
  });
  afterAll(() => guarded.close());

  it.each([
    'http://127.0.0.1:9/hook',
    'http://localhost:9/',
    'http://[::1]:9/',
    'http://2130706433/',
    'http://10.0.0.8/',
    'http://169.254.169.254/latest',
  ])('refuses %s when it is saved, before any request', async (url) => {
    const before = agentServer.received.length;
    const res = await guarded.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: guardedOwner.auth,
      payload: { name: 'sneaky', webhook_url: url },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/private|loopback|localhost/);
    expect(agentServer.received).toHaveLength(before);
  });
});

describe('secrets and deactivation', () => {
  it('regenerate-secret replaces the signing key at once', async () => {
    const created = (await create({ name: 'rotator', webhook_url: agentServer.url })).json();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${created.id}/regenerate-secret`,
      headers: owner.auth,
    });
    expect(res.statusCode).toBe(200);
    const { webhook_secret: fresh } = res.json();
    expect(fresh).toMatch(/^agsec_/);
    expect(fresh).not.toBe(created.webhook_secret);
    await t.app.inject({ method: 'POST', url: `/api/agents/${created.id}/retest`, headers: owner.auth });
    const ping = agentServer.received.at(-1)!;
    expect(ping.headers['x-arena-signature']).toBe(hmac(fresh, ping.body));
    expect(ping.headers['x-arena-signature']).not.toBe(hmac(created.webhook_secret, ping.body));
  });

  it('deactivation is permanent: retest 409, a new URL is saved but not pinged', async () => {
    const { id } = (await create({ name: 'retiree', webhook_url: agentServer.url })).json();
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/deactivate`, headers: owner.auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id, active: false });
    const retest = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/retest`, headers: owner.auth });
    expect(retest.statusCode).toBe(409);
    expect(retest.json().detail).toMatch(/deactivated/);
    const before = agentServer.received.length;
    const other = await startAgentServer();
    try {
      const patched = await t.app.inject({
        method: 'PATCH',
        url: `/api/agents/${id}`,
        headers: owner.auth,
        payload: { webhook_url: other.url, description: 'retired' },
      });
      expect(patched.statusCode).toBe(200);
      expect(patched.json()).toMatchObject({ webhook_url: other.url, description: 'retired', active: false });
      expect(other.received).toHaveLength(0);
      expect(agentServer.received).toHaveLength(before);
    } finally {
      await other.close();
    }
    const again = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/deactivate`, headers: owner.auth });
    expect(again.json()).toEqual({ id, active: false });
  });

  it('retest on a pull agent is 409 (its mode rules it out)', async () => {
    const { id } = (await create({ name: 'pull-retest', mode: 'pull' })).json();
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/retest`, headers: owner.auth });
    expect(res.statusCode).toBe(409);
  });

  it('PATCH cannot give a pull agent a webhook_url', async () => {
    const { id } = (await create({ name: 'pull-patch', mode: 'pull' })).json();
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/agents/${id}`,
      headers: owner.auth,
      payload: { webhook_url: agentServer.url },
    });
    expect(res.statusCode).toBe(409);
  });
});

describe('listing and detail', () => {
  it('lists own agents only, with SPEC fields, and shows the full detail with the gym started', async () => {
    const mine = await register(t.app);
    const { id } = (
      await create(
        { name: 'listed', webhook_url: agentServer.url, cost_claimed: '$0.01', description: 'hi' },
        mine.auth,
      )
    ).json();
    await create({ name: 'pulled', mode: 'pull' }, mine.auth);
    const list = await t.app.inject({ method: 'GET', url: '/api/agents', headers: mine.auth });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((a: { name: string }) => a.name)).toEqual(['listed', 'pulled']);
    expect(Object.keys(list.json()[0]).sort()).toEqual(
      [
        'active',
        'created_at',
        'elo',
        'gym_complete',
        'id',
        'last_seen',
        'mode',
        'model_claimed',
        'name',
        'online',
        'ping_error',
        'webhook_url',
      ].sort(),
    );
    // The push agent passed its ping at creation: online, seen then; the pull agent's runner never polled.
    expect(list.json()[0]).toMatchObject({ online: true, last_seen: expect.stringMatching(/^\d{4}-.*\.\d{6}$/) });
    expect(list.json()[1]).toMatchObject({ online: false, last_seen: null });
    expect(list.json()[1].webhook_url).toBeUndefined();
    const detail = (await t.app.inject({ method: 'GET', url: `/api/agents/${id}`, headers: mine.auth })).json();
    expect(detail).toMatchObject({ cost_claimed: '$0.01', tools_claimed: [], description: 'hi', elo: 1500 });
    // A pull agent is active at once, so its gym has started (no worker runs here, so nothing is done yet).
    expect(detail.gym).toEqual({
      total: 6,
      done: 0,
      errors: 0,
      gym_complete: false,
      started_at: expect.stringMatching(/^\d{4}-.*\.\d{6}$/),
      completed_at: null,
    });
  });
});

describe('ownership', () => {
  it("answers 404 on every agent route for another account's agent, and changes nothing", async () => {
    const a = await register(t.app);
    const b = await register(t.app);
    const { id } = (await create({ name: 'owned-by-a', webhook_url: agentServer.url }, a.auth)).json();
    const routes: Array<[string, string, object?]> = [
      ['GET', `/api/agents/${id}`],
      ['PATCH', `/api/agents/${id}`, { name: 'stolen' }],
      ['POST', `/api/agents/${id}/retest`],
      ['POST', `/api/agents/${id}/regenerate-secret`],
      ['POST', `/api/agents/${id}/deactivate`],
    ];
    for (const [method, url, payload] of routes) {
      const res = await t.app.inject({ method: method as 'GET', url, headers: b.auth, payload });
      expect([method, url, res.statusCode]).toEqual([method, url, 404]);
      expect(res.json().detail).toBe('agent not found');
      const missing = await t.app.inject({
        method: method as 'GET',
        url: url.replace(String(id), '999999'),
        headers: b.auth,
        payload,
      });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().detail).toBe('agent not found');
    }
    const detail = (await t.app.inject({ method: 'GET', url: `/api/agents/${id}`, headers: a.auth })).json();
    expect(detail).toMatchObject({ name: 'owned-by-a', active: true });
    expect((await t.app.inject({ method: 'GET', url: '/api/agents', headers: b.auth })).json()).toEqual([]);
  });
});
