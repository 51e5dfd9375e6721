import { Client } from '@temporalio/client';
import { releaseWork } from '../../infra/db/repositories/work-item.repository';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { until } from '../support/wait';

let t: TestApp;
let client: Client;
let owner: Registered;
let agent: { id: number; webhook_secret: string; run_command: string };

beforeAll(async () => {
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1' }, { pastTheGym: false });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  owner = await register(t.app);
  await t.startWorker();
  agent = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'puller', mode: 'pull' },
    })
  ).json();
});
afterAll(async () => {
  await t.close();
});

const secretHeader = () => ({ 'x-arena-secret': agent.webhook_secret });
const next = (wait = 0, id = agent.id, headers: Record<string, string> = secretHeader()) =>
  t.app.inject({ method: 'GET', url: `/api/agents/${id}/work/next?wait=${wait}`, headers });
const post = (workId: string, payload: object, id = agent.id) =>
  t.app.inject({ method: 'POST', url: `/api/agents/${id}/work/${workId}/result`, headers: secretHeader(), payload });
const sandbox = (payload: object) =>
  t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/sandbox`, headers: owner.auth, payload });
const outcome = (publicId: string) =>
  client.workflow.getHandle(deliveryWorkflowId(Number(publicId.split('-')[1]))).result();
const sessionOf = async (publicId: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=100` }))
    .json()
    .sessions.find((s: { id: string }) => s.id === publicId);
const detail = async () =>
  (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}`, headers: owner.auth })).json();

describe('the gym of a pull agent', () => {
  it('hands out gym prompts through work/next, sends an errored one again on a later cycle, then completes', async () => {
    expect(agent.run_command).toContain(`--agent ${agent.id}`);
    const seen: string[] = [];
    let failedOnce: string | undefined;
    while (!(await detail()).gym_complete) {
      const res = await next(5);
      if (res.statusCode === 204) continue;
      expect(res.statusCode).toBe(200);
      const work = res.json();
      expect(work).toEqual({
        prompt_id: expect.any(Number),
        prompt: expect.any(String),
        category: expect.stringMatching(/^gym-/),
        deadline_seconds: expect.any(Number),
        kind: 'gym',
        work_id: expect.stringMatching(/^gym-\d+$/),
      });
      expect(work.deadline_seconds).toBeGreaterThan(290);
      seen.push(work.category + ':' + work.prompt_id);
      // The first prompt fails once; the gym must send it again.
      const fail = failedOnce === undefined;
      if (fail) failedOnce = String(work.prompt_id);
      const result = await post(work.work_id, fail ? { error: 'not ready yet' } : { response: 'fine', latency_ms: 7 });
      expect(result.statusCode).toBe(200);
      // The answer says what the arena made of it: the error posted is the session's error.
      expect(result.json()).toEqual({
        work_id: work.work_id,
        recorded: true,
        status: fail ? 'error' : 'answered',
        error: fail ? expect.stringContaining('not ready yet') : null,
      });
    }
    const gym = (await detail()).gym;
    expect(gym).toMatchObject({ total: 6, done: 6, errors: 1, gym_complete: true });
    expect(seen.filter((s) => s.endsWith(`:${failedOnce}`))).toHaveLength(2);
    expect(seen).toHaveLength(7);
  });
});

describe('pull work', () => {
  it('answers 204 with an empty body when there is no work, at once or after the wait', async () => {
    const now = await next(0);
    expect(now.statusCode).toBe(204);
    expect(now.body).toBe('');
    const started = Date.now();
    const later = await next(1);
    expect(later.statusCode).toBe(204);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('wakes a waiting long-poll as soon as work is queued', async () => {
    const polling = next(50);
    const queuedAt = Date.now();
    const { id } = (await sandbox({ prompt: 'wake up', deadline_seconds: 30 })).json();
    const res = await polling;
    // Woken by the notification, not found by the 25 s re-check.
    expect(Date.now() - queuedAt).toBeLessThan(20_000);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ work_id: id, kind: 'sandbox', prompt: 'wake up', category: 'sandbox' });
    expect(res.json().deadline_seconds).toBeLessThanOrEqual(30);
    expect((await post(id, { response: 'awake' })).statusCode).toBe(200);
    expect(await outcome(id)).toEqual({ status: 'answered' });
  });

  it('hands an item put back by a poll whose client left to another waiting poll at once', async () => {
    const { id } = (await sandbox({ prompt: 'put back', deadline_seconds: 60 })).json();
    expect((await next(10)).json()).toMatchObject({ work_id: id });
    const waiting = next(50);
    const releasedAt = Date.now();
    // What the work/next handler does when the runner disconnects just as the item was leased to it.
    await releaseWork(t.orm.em.fork(), Number(id.split('-')[1]));
    const res = await waiting;
    expect(Date.now() - releasedAt).toBeLessThan(20_000);
    expect(res.json()).toMatchObject({ work_id: id, prompt: 'put back' });
    expect((await post(id, { response: 'got it' })).statusCode).toBe(200);
  });

  it('ends a long-poll as soon as its runner disconnects, and hands it nothing', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const openPolls = async () => (await t.app.openLongPolls.get()).values[0]?.value ?? 0;
    const runner = new AbortController();
    const polling = fetch(`${base}/api/agents/${agent.id}/work/next?wait=50`, {
      headers: secretHeader(),
      signal: runner.signal,
    }).catch((err: Error) => err.name);
    await until(async () => (await openPolls()) === 1);
    runner.abort();
    expect(await polling).toBe('AbortError');
    await until(async () => (await openPolls()) === 0);
    // Work queued now goes to the next poll: nothing was leased to the runner that left.
    const { id } = (await sandbox({ prompt: 'after the runner left', deadline_seconds: 30 })).json();
    expect((await next(10)).json()).toMatchObject({ work_id: id });
    expect((await post(id, { response: 'picked up' })).statusCode).toBe(200);
  });

  it('records an answer once: the same body again is 200, a different one 409', async () => {
    const { id } = (await sandbox({ prompt: '6 x 7', category: 'math', deadline_seconds: 30 })).json();
    const work = (await next(5)).json();
    expect(work.work_id).toBe(id);
    const first = await post(id, { response: '42', latency_ms: 12 });
    expect(first.json()).toEqual({ work_id: id, recorded: true, status: 'answered', error: null });
    expect(await outcome(id)).toEqual({ status: 'answered' });
    expect(await sessionOf(id)).toMatchObject({
      status: 'answered',
      response: '42',
      error: null,
      latency_ms: expect.any(Number),
    });
    const [row] = await t.orm.em
      .getConnection()
      .execute(
        'select agent_latency_ms, w.state from sessions s join work_items w on w.session_id = s.id where s.id = ?',
        [Number(id.split('-')[1])],
      );
    expect(row).toEqual({ agent_latency_ms: 12, state: 'completed' });

    const again = await post(id, { response: '42' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ work_id: id, recorded: true, status: 'answered', error: null });
    const different = await post(id, { response: '41' });
    expect(different.statusCode).toBe(409);
    expect(different.json().detail).toBe('a different result was already recorded for this work item');
    expect((await sessionOf(id)).response).toBe('42');
  });

  it('records a runner error as an error session', async () => {
    const { id } = (await sandbox({ prompt: 'crash', deadline_seconds: 30 })).json();
    await next(5);
    expect((await post(id, { error: 'command exited with code 1' })).statusCode).toBe(200);
    expect(await sessionOf(id)).toMatchObject({ status: 'error', error: 'command exited with code 1', response: null });
  });

  it('records a blank answer as the error "empty response"', async () => {
    const { id } = (await sandbox({ prompt: 'say nothing', deadline_seconds: 30 })).json();
    await next(5);
    expect((await post(id, { response: '  \n\t ' })).statusCode).toBe(200);
    expect(await outcome(id)).toEqual({ status: 'error' });
    expect(await sessionOf(id)).toMatchObject({ status: 'error', error: 'empty response', response: null });
  });

  it('expires an item at its deadline and refuses a late result with 409', async () => {
    const { id } = (await sandbox({ prompt: 'too slow', deadline_seconds: 1 })).json();
    expect((await next(5)).json().work_id).toBe(id);
    expect(await outcome(id)).toEqual({ status: 'timeout' });
    const late = await post(id, { response: 'finally' });
    expect(late.statusCode).toBe(409);
    expect(late.json().detail).toBe('work item expired: deadline exceeded (1 s)');
    expect(await sessionOf(id)).toMatchObject({ status: 'timeout', error: 'deadline exceeded (1 s)', response: null });
    const [row] = await t.orm.em
      .getConnection()
      .execute('select state from work_items where session_id = ?', [Number(id.split('-')[1])]);
    expect(row?.state).toBe('expired');
  });

  it('gives a runner that takes an item late its whole deadline from then, and says so in deadline_seconds', async () => {
    const { id, created_at: createdAt } = (await sandbox({ prompt: 'late runner', deadline_seconds: 2 })).json();
    // The runner comes 1.4 s after the start: 0.6 s before the deadline counted from there.
    await until(() => Promise.resolve(Date.now() >= new Date(createdAt).getTime() + 1_400));
    const work = (await next(0)).json();
    expect(work).toMatchObject({ work_id: id, deadline_seconds: 2 });
    const leasedAt = Date.now();
    // It answers 1.5 s after taking it: within its 2 s, 2.9 s after the start.
    await until(() => Promise.resolve(Date.now() >= leasedAt + 1_500));
    expect((await post(id, { response: 'in time' })).statusCode).toBe(200);
    expect(await outcome(id)).toEqual({ status: 'answered' });
    expect(await sessionOf(id)).toMatchObject({ status: 'answered', response: 'in time' });
  });

  it('never hands out an item whose deadline passed before anyone fetched it', async () => {
    const { id } = (await sandbox({ prompt: 'nobody came', deadline_seconds: 1 })).json();
    expect(await outcome(id)).toEqual({ status: 'timeout' });
    expect((await next(0)).statusCode).toBe(204);
  });

  it('cancels a queued sandbox task, which then is never handed out', async () => {
    const { id } = (await sandbox({ prompt: 'cancel me', deadline_seconds: 30 })).json();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox/${id}/cancel`,
      headers: owner.auth,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('cancelled');
    expect((await next(0)).statusCode).toBe(204);
  });

  it('refuses a result for an item that was not handed out yet', async () => {
    const { id } = (await sandbox({ prompt: 'not yet', deadline_seconds: 30 })).json();
    const early = await post(id, { response: 'eager' });
    expect(early.statusCode).toBe(409);
    expect(early.json().detail).toMatch(/has not been handed out yet/);
    expect((await next(5)).json().work_id).toBe(id);
    expect((await post(id, { response: 'now' })).statusCode).toBe(200);
  });
});

describe('pull errors', () => {
  it('answers 403 for a missing or wrong secret, 404 for an unknown agent, 409 for a push agent', async () => {
    expect((await next(0, agent.id, {})).statusCode).toBe(403);
    const wrong = await next(0, agent.id, { 'x-arena-secret': 'agsec_' + 'x'.repeat(43) });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().detail).toBe('invalid or missing X-Arena-Secret');
    expect((await next(0, 999999)).statusCode).toBe(404);

    const other = (
      await t.app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: owner.auth,
        payload: { name: 'p2', mode: 'pull' },
      })
    ).json();
    await t.app.inject({ method: 'POST', url: `/api/agents/${other.id}/deactivate`, headers: owner.auth });
    const deactivated = await next(0, other.id, { 'x-arena-secret': other.webhook_secret });
    expect(deactivated.statusCode).toBe(409);
    expect(deactivated.json().detail).toBe('agent is deactivated');
  });

  it('answers 409 "agent is not in pull mode" for a push agent', async () => {
    await t.orm.em.getConnection().execute(
      `insert into agents (owner_id, name, mode, webhook_url, owner_handle, secret_hash, secret_sealed, created_at)
       select owner_id, 'pusher', 'push', 'http://127.0.0.1:1/', owner_handle, secret_hash, secret_sealed, now() from agents where id = ?`,
      [agent.id],
    );
    const [{ id }] = await t.orm.em.getConnection().execute<[{ id: number }]>(`select max(id) as id from agents`);
    const res = await next(0, id);
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toBe('agent is not in pull mode');
  });

  it.each([
    ['wait=-1', /wait must not be negative/],
    ['wait=abc', /wait/],
    ['wait=1.5', /wait must be a whole number/],
  ])('answers 400 for %s', async (query, detail) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/agents/${agent.id}/work/next?${query}`,
      headers: secretHeader(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(detail);
  });

  it.each([
    [{}, /exactly one of response or error/],
    [{ response: 'a', error: 'b' }, /exactly one of response or error/],
    [{ response: 42 }, /response/],
    [{ response: 'x'.repeat(100_001) }, /response must be at most 100000 characters/],
    [{ response: 'a', latency_ms: -1 }, /latency_ms/],
  ])('answers 400 for result body %#', async (payload, detail) => {
    const res = await post('sandbox-1', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(detail);
  });

  it("answers 404 for malformed, unknown and other agents' work ids", async () => {
    for (const workId of ['nonsense', 'sandbox-0', 'main-999999', 'gym-99999999999']) {
      const res = await post(workId, { response: 'x' });
      expect(res.statusCode).toBe(404);
      expect(res.json().detail).toBe('work item not found');
    }
    const mine = (await sandbox({ prompt: 'mine', deadline_seconds: 30 })).json();
    const other = (
      await t.app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: owner.auth,
        payload: { name: 'p3', mode: 'pull' },
      })
    ).json();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${other.id}/work/${mine.id}/result`,
      headers: { 'x-arena-secret': other.webhook_secret },
      payload: { response: 'not yours' },
    });
    expect(res.statusCode).toBe(404);
  });
});
