import { register, type Registered } from '../support/test-app';
import { WebClient } from '../web/support';
import { startOpsArena, type OpsArena } from './support';
import { eventually } from '../support/wait';

let arena: OpsArena;
let admin: Registered;
let someone: Registered;
let flaky: { id: number };
let failed: Array<{ id: string; sessionId: number }>;

beforeAll(async () => {
  arena = await startOpsArena({
    ARENA_ADMIN_USERNAMES: 'ops-lead, Night-Shift',
    TEMPORAL_UI_URL: 'https://temporal.example',
  });
  // An operator's account gets its name before the name is listed in ARENA_ADMIN_USERNAMES (then nobody else can take it).
  admin = await register(arena.t.app);
  await arena.sql(`update users set username = 'ops-lead' where id = ?`, [admin.userId]);
  someone = await register(arena.t.app);
  flaky = await arena.createAgent({ name: 'flaky', webhook_url: arena.server.url.replace('/hook', '/flaky') });
  arena.failing.flaky = true;
  failed = [await arena.sandbox(flaky.id, 'a'), await arena.sandbox(flaky.id, 'b')];
  await Promise.all(failed.map((f) => arena.settle(f.sessionId)));
  arena.failing.flaky = false;
}, 60_000);
afterAll(() => arena.close());

const get = (url: string, who: Registered | null) =>
  arena.t.app.inject({ method: 'GET', url, headers: who ? who.auth : {} });
const post = (url: string, who: Registered | null, payload?: object) =>
  arena.t.app.inject({ method: 'POST', url, headers: who ? who.auth : {}, ...(payload ? { payload } : {}) });

it('lets only operators in: 401 without a key, 403 for other accounts, and nothing changes', async () => {
  for (const [method, url] of [
    ['GET', '/api/admin/deliveries'],
    ['POST', `/api/admin/deliveries/${failed[0]!.id}/redeliver`],
    ['POST', '/api/admin/redeliveries'],
  ] as const) {
    const anonymous = await arena.t.app.inject({ method, url, ...(method === 'POST' ? { payload: {} } : {}) });
    expect(anonymous.statusCode).toBe(401);
    const other = await arena.t.app.inject({
      method,
      url,
      headers: someone.auth,
      ...(method === 'POST' ? { payload: {} } : {}),
    });
    expect(other.statusCode).toBe(403);
    expect(other.json()).toEqual({ detail: 'operators only: this account is not in ARENA_ADMIN_USERNAMES' });
  }
  expect(await arena.sql(`select id from sessions where redelivery_of_id is not null`)).toEqual([]);
});

it("keeps operators' usernames for them: nobody else can take one, on the API or the website", async () => {
  const taken = await arena.t.app.inject({
    method: 'PATCH',
    url: '/api/account',
    headers: someone.auth,
    payload: { username: 'Night-Shift' },
  });
  expect(taken.statusCode).toBe(409);
  expect(taken.json()).toEqual({ detail: 'username night-shift is reserved' });
  const signUp = await new WebClient(arena.t.app).submit('/signup', {
    email: 'eve@example.org',
    username: 'ops-lead',
    password: 'a long enough password',
  });
  expect(signUp.statusCode).toBe(409);
  expect(signUp.body).toContain('username ops-lead is reserved');
  // The operator keeps theirs when editing other fields.
  const kept = await arena.t.app.inject({
    method: 'PATCH',
    url: '/api/account',
    headers: admin.auth,
    payload: { username: 'ops-lead', bio: 'on call' },
  });
  expect(kept.statusCode).toBe(200);
});

it('lists deliveries with filters and Temporal UI links, and answers 400 for bad filters', async () => {
  const rows: Array<{ session_id: string; ui_url: string }> = await eventually(async () => {
    const res = await get(`/api/admin/deliveries?agent=${flaky.id}&outcome=error&kind=sandbox&since=1h`, admin);
    expect(res.statusCode).toBe(200);
    return res.json().length === 2 ? res.json() : undefined;
  }, 'both failures in visibility');
  expect(rows.map((r: { session_id: string }) => r.session_id).sort()).toEqual(failed.map((f) => f.id).sort());
  expect(rows[0]?.ui_url).toMatch(
    new RegExp(`^https://temporal.example/namespaces/[^/]+/workflows/delivery-\\d+/[0-9a-f-]+/history$`),
  );
  for (const query of ['agent=abc', 'kind=other', 'outcome=exploded', 'since=forever', 'limit=0', 'limit=10001']) {
    const res = await get(`/api/admin/deliveries?${query}`, admin);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/^/);
  }
});

it('redelivers one delivery (202), refuses unknown (404) and running ones (409)', async () => {
  const res = await post(`/api/admin/deliveries/${failed[0]!.id}/redeliver`, admin);
  expect(res.statusCode).toBe(202);
  const body = res.json();
  expect(body).toEqual({
    session_id: expect.stringMatching(/^sandbox-\d+$/),
    redelivery_of: failed[0]!.id,
    workflow_id: expect.stringMatching(/^delivery-\d+$/),
  });
  expect(await arena.client.workflow.getHandle(body.workflow_id).result()).toEqual({ status: 'answered' });
  expect((await post('/api/admin/deliveries/sandbox-999999999/redeliver', admin)).statusCode).toBe(404);
  expect((await post('/api/admin/deliveries/garbage/redeliver', admin)).statusCode).toBe(404);
  const puller = await arena.createAgent({ name: 'pending-puller', mode: 'pull' });
  const running = await arena.sandbox(puller.id, 'waits', 300);
  const refused = await post(`/api/admin/deliveries/${running.id}/redeliver`, admin);
  expect(refused.statusCode).toBe(409);
  expect(refused.json().detail).toMatch(/still running/);
});

it('redelivers a filtered set in bulk, skipping what was already redelivered', async () => {
  const res = await post('/api/admin/redeliveries', admin, { agent: flaky.id, kind: 'sandbox', since: '1h' });
  expect(res.statusCode).toBe(200);
  const body = res.json();
  expect(body.redelivered.map((r: { redelivery_of: string }) => r.redelivery_of)).toEqual([failed[1]!.id]);
  expect(body.skipped).toEqual([{ session_id: failed[0]!.id, reason: 'already redelivered' }]);
  expect((await post('/api/admin/redeliveries', admin, { outcome: 'pending' })).statusCode).toBe(400);
  expect((await post('/api/admin/redeliveries', admin, { kind: 'nonsense' })).statusCode).toBe(400);
});

it("lists only this arena's deliveries: another arena's on the same namespace (its own task queue) are not in them", async () => {
  const other = await arena.client.workflow.start('deliverPrompt', {
    taskQueue: `another-arena-${Date.now()}`,
    workflowId: `delivery-${2_000_000_000 + (Date.now() % 100_000_000)}`,
    args: [{}],
  });
  try {
    // Visible to a search of the namespace first, so that its absence below means something.
    await eventually(async () => {
      for await (const info of arena.client.workflow.list({ query: `WorkflowId = '${other.workflowId}'` }))
        return info.workflowId;
      return undefined;
    }, "the other arena's delivery in visibility");
    const listed = (await get('/api/admin/deliveries?limit=10000', admin)).json() as Array<{ workflow_id: string }>;
    expect(listed.map((d) => d.workflow_id)).not.toContain(other.workflowId);
    expect(listed.length).toBeGreaterThan(0);
  } finally {
    await other.terminate();
  }
});
