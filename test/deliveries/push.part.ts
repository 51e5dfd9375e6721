import http from 'node:http';
import { createHmac } from 'node:crypto';
import { freePort } from '../../infra/ports';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { answer, hang, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { Client } from '@temporalio/client';
import { until } from '../support/wait';

let t: TestApp;
let client: Client;
let agentServer: TestAgentServer;
let owner: Registered;
let agent: { id: number; webhook_secret: string };

beforeAll(async () => {
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1' }, { pingTimeoutMs: 2000, pastTheGym: false });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  agentServer = await startAgentServer();
  owner = await register(t.app);
  await t.startWorker();
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name: 'pusher', webhook_url: agentServer.url },
  });
  agent = res.json();
  // The gym starts when the agent first becomes active; let it finish so its prompts stay out of the way.
  await client.workflow.getHandle(`gym-${agent.id}-1`).result();
});
afterAll(async () => {
  await agentServer.close();
  await t.close();
});
beforeEach(() => agentServer.behave(answer(200, { response: 'the answer' })));

const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
const sandbox = (payload: object) =>
  t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/sandbox`, headers: owner.auth, payload });
const outcome = (publicId: string) =>
  client.workflow.getHandle(deliveryWorkflowId(Number(publicId.split('-')[1]))).result();
const feed = async () => (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity` })).json();
const sessionOf = async (publicId: string) => (await feed()).sessions.find((s: { id: string }) => s.id === publicId);
/**
 * Points the agent's webhook at a port nobody listens on while `run` runs; `listen` brings an agent up
 * there. Afterwards that agent is closed and the webhook points at the usual agent again.
 */
async function withAgentOnLatePort(
  run: (port: number, listen: (handler: http.RequestListener) => Promise<void>) => Promise<void>,
): Promise<void> {
  const port = await freePort();
  const setWebhook = (url: string) =>
    t.orm.em.getConnection().execute('update agents set webhook_url = ? where id = ?', [url, agent.id]);
  await setWebhook(`http://127.0.0.1:${port}/hook`);
  let server: http.Server | undefined;
  try {
    await run(port, async (handler) => {
      server = http.createServer(handler);
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    });
  } finally {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await setWebhook(agentServer.url);
  }
}
const requestsFor = (publicId: string) =>
  agentServer.received.filter((r) => r.headers['x-arena-delivery'] === publicId);

describe('the gym of a push agent', () => {
  it('sent every gym prompt signed, and completed', async () => {
    const gymRequests = agentServer.received.filter((r) => String(r.headers['x-arena-delivery']).startsWith('gym-'));
    expect(gymRequests.length).toBe(6);
    for (const r of gymRequests) {
      expect(r.headers['x-arena-signature']).toBe(hmac(agent.webhook_secret, r.body));
      expect(JSON.parse(r.body)).toEqual({
        prompt_id: expect.any(Number),
        prompt: expect.any(String),
        category: expect.stringMatching(/^gym-/),
        deadline_seconds: 300,
      });
    }
    const detail = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}`, headers: owner.auth })).json();
    expect(detail.gym_complete).toBe(true);
    expect(detail.gym).toMatchObject({ total: 6, done: 6, errors: 0, gym_complete: true });
    expect(detail.gym.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    const gymSessions = (await feed()).sessions.filter((s: { kind: string }) => s.kind === 'gym');
    expect(gymSessions).toHaveLength(6);
    expect(
      gymSessions.every((s: { status: string; response: string }) => s.status === 'answered' && s.response === 'ok'),
    ).toBe(true);
  });
});

describe('push deliveries', () => {
  it('delivers a signed prompt and records the answer with its latency', async () => {
    const res = await sandbox({ prompt: 'What is 6 x 7?', category: 'math', deadline_seconds: 30 });
    expect(res.statusCode).toBe(202);
    const pending = res.json();
    expect(pending).toMatchObject({
      kind: 'sandbox',
      status: 'pending',
      prompt: 'What is 6 x 7?',
      category: 'math',
      response: null,
      latency_ms: 0,
    });
    expect(await outcome(pending.id)).toEqual({ status: 'answered' });

    const [request] = requestsFor(pending.id);
    expect(requestsFor(pending.id)).toHaveLength(1);
    expect(JSON.parse(request!.body)).toEqual({
      prompt_id: expect.any(Number),
      prompt: 'What is 6 x 7?',
      category: 'math',
      deadline_seconds: 30,
    });
    expect(request!.headers['x-arena-signature']).toBe(hmac(agent.webhook_secret, request!.body));
    // The 202 is built from what was written, not read back: the feed shows the same session.
    expect(await sessionOf(pending.id)).toEqual({
      ...pending,
      status: 'answered',
      response: 'the answer',
      error: null,
      latency_ms: expect.any(Number),
    });
  });

  it('records a missed deadline as timeout and never sends the prompt again', async () => {
    agentServer.behave(hang);
    const { id } = (await sandbox({ prompt: 'slow', deadline_seconds: 1 })).json();
    expect(await outcome(id)).toEqual({ status: 'timeout' });
    expect(await sessionOf(id)).toMatchObject({ status: 'timeout', error: 'deadline exceeded (1 s)', response: null });
    expect(requestsFor(id)).toHaveLength(1);
  });

  it('records an HTTP 500 as an error and never sends it again', async () => {
    agentServer.behave(answer(500, { detail: 'boom' }));
    const { id } = (await sandbox({ prompt: 'fail', deadline_seconds: 20 })).json();
    expect(await outcome(id)).toEqual({ status: 'error' });
    expect(await sessionOf(id)).toMatchObject({ status: 'error', error: 'the webhook answered HTTP 500' });
    expect(requestsFor(id)).toHaveLength(1);
  });

  it.each([
    ['a body that is not JSON', 'not json', /not JSON/],
    ['JSON without response', JSON.stringify({ answer: 'x' }), /without a "response" field/],
    ['a response that is not a string', JSON.stringify({ response: 42 }), /not a string/],
  ])('records %s as an error', async (_label, body, error) => {
    agentServer.behave((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    const { id } = (await sandbox({ prompt: 'shape', deadline_seconds: 20 })).json();
    expect(await outcome(id)).toEqual({ status: 'error' });
    expect((await sessionOf(id)).error).toMatch(error);
  });

  it('tries a refused connection again and delivers once the agent is up, within the deadline', async () => {
    const received: string[] = [];
    await withAgentOnLatePort(async (_port, listen) => {
      const { id } = (await sandbox({ prompt: 'are you there?', deadline_seconds: 30 })).json();
      const sessionId = Number(id.split('-')[1]);
      // The first attempt failed to connect once its cause is kept on the pending session.
      await until(async () => {
        const [row] = await t.orm.em.getConnection().execute('select error from sessions where id = ?', [sessionId]);
        return /refused/.test(row?.error ?? '');
      });
      await listen((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          received.push(body);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ response: 'here now' }));
        });
      });
      expect(await outcome(id)).toEqual({ status: 'answered' });
      expect(received).toHaveLength(1);
      expect(await sessionOf(id)).toMatchObject({ status: 'answered', response: 'here now', error: null });
    });
  });

  it('gives the agent its whole deadline from the moment the prompt left, however late that was', async () => {
    let arrivedAt = 0;
    await withAgentOnLatePort(async (_port, listen) => {
      const { id } = (await sandbox({ prompt: 'take your time', deadline_seconds: 3 })).json();
      const handle = client.workflow.getHandle(deliveryWorkflowId(Number(id.split('-')[1])));
      // The agent comes up after two refused attempts: the prompt leaves 1.5 s or more after the start.
      await until(async () => ((await handle.describe()).raw.pendingActivities?.[0]?.attempt ?? 0) >= 3);
      await listen((req, res) => {
        arrivedAt = Date.now();
        req.resume();
        // Answers 2 s after the prompt arrived: within its 3 s, though 3.5 s or more after the start.
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ response: 'in time' }));
        }, 2_000);
      });
      expect(await outcome(id)).toEqual({ status: 'answered' });
      const session = await sessionOf(id);
      expect(session).toMatchObject({ status: 'answered', response: 'in time' });
      expect(session.latency_ms).toBeGreaterThanOrEqual(2_000);
      expect(arrivedAt - new Date(session.created_at).getTime()).toBeGreaterThan(1_000);
    });
  });

  it('records a missed deadline no earlier than the deadline after the prompt arrived', async () => {
    let arrivedAt = 0;
    agentServer.behave(() => {
      arrivedAt = Date.now();
    });
    const { id } = (await sandbox({ prompt: 'silent', deadline_seconds: 2 })).json();
    expect(await outcome(id)).toEqual({ status: 'timeout' });
    const [row] = await t.orm.em
      .getConnection()
      .execute('select (extract(epoch from completed_at) * 1000)::float8 as completed_ms from sessions where id = ?', [
        Number(id.split('-')[1]),
      ]);
    expect(row!.completed_ms - arrivedAt).toBeGreaterThanOrEqual(2_000);
  });

  it('cancels a pending sandbox task once, and refuses a second cancel', async () => {
    agentServer.behave(hang);
    const { id } = (await sandbox({ prompt: 'never mind', deadline_seconds: 60 })).json();
    await until(async () => requestsFor(id).length === 1);
    const cancel = () =>
      t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/sandbox/${id}/cancel`, headers: owner.auth });
    const res = await cancel();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, status: 'cancelled', error: 'cancelled by the owner' });
    expect(await outcome(id)).toEqual({ status: 'cancelled' });
    const again = await cancel();
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toBe('the task has already ended (cancelled)');
  });
});

describe('operators', () => {
  it('find deliveries in Temporal by agent, kind, mode and outcome, with a readable summary', async () => {
    agentServer.behave(answer(503, {}));
    const { id } = (await sandbox({ prompt: 'find me', category: 'ops', deadline_seconds: 20 })).json();
    expect(await outcome(id)).toEqual({ status: 'error' });
    const query = `ArenaAgentId = ${agent.id} AND ArenaKind = "sandbox" AND ArenaMode = "push" AND ArenaOutcome = "error"`;
    const found: string[] = [];
    await until(async () => {
      found.length = 0;
      for await (const wf of client.workflow.list({ query })) found.push(wf.workflowId);
      return found.includes(deliveryWorkflowId(Number(id.split('-')[1])));
    });
    const description = await client.workflow.getHandle(deliveryWorkflowId(Number(id.split('-')[1]))).describe();
    expect(await description.staticSummary()).toBe(`agent ${agent.id} · sandbox · ops (push, 20 s)`);
  });
});

describe('blank answers', () => {
  it('records a blank push answer as the error "empty response"', async () => {
    agentServer.behave(answer(200, { response: '   ' }));
    const { id } = (await sandbox({ prompt: 'say nothing', deadline_seconds: 30 })).json();
    expect(await outcome(id)).toEqual({ status: 'error' });
    expect(await sessionOf(id)).toMatchObject({ status: 'error', error: 'empty response', response: null });
  });

  it('never completes the gym of an agent whose every answer is blank', async () => {
    const blank = await startAgentServer(answer(200, { response: ' ' }));
    try {
      const created = (
        await t.app.inject({
          method: 'POST',
          url: '/api/agents',
          headers: owner.auth,
          payload: { name: 'silent', webhook_url: blank.url },
        })
      ).json();
      const gymErrors = async () =>
        (await t.app.inject({ method: 'GET', url: `/api/agents/${created.id}/activity?limit=100` }))
          .json()
          .sessions.filter((s: { kind: string; status: string }) => s.kind === 'gym' && s.status === 'error');
      await until(async () => (await gymErrors()).length >= 6);
      expect((await gymErrors()).every((s: { error: string }) => s.error === 'empty response')).toBe(true);
      const detail = (
        await t.app.inject({ method: 'GET', url: `/api/agents/${created.id}`, headers: owner.auth })
      ).json();
      expect(detail.gym).toMatchObject({ done: 0, gym_complete: false });
    } finally {
      await blank.close();
    }
  });
});

describe('what the public sees of a failed delivery', () => {
  it('shows a failure class in the public feed and on the profile page, and the detail to the owner only', async () => {
    // The agent reads the prompt and hangs up without answering: the cause names its address.
    agentServer.behave((_req, res) => res.socket?.destroy());
    const { id } = (await sandbox({ prompt: 'hang up on me', deadline_seconds: 30 })).json();
    expect(await outcome(id)).toEqual({ status: 'error' });
    const address = new URL(agentServer.url).host;

    const seen = await sessionOf(id);
    expect(seen).toMatchObject({
      status: 'error',
      error: 'the connection to the webhook broke before its answer was complete',
    });
    const publicFeed = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=100` })).body;
    expect(publicFeed).not.toContain(address);
    const stranger = await register(t.app);
    const strangers = await t.app.inject({
      method: 'GET',
      url: `/api/agents/${agent.id}/activity?limit=100`,
      headers: stranger.auth,
    });
    expect(strangers.statusCode).toBe(200);
    expect(strangers.body).not.toContain(address);
    for (const accept of ['text/html', 'text/markdown']) {
      const page = await t.app.inject({ method: 'GET', url: `/agents/${agent.id}`, headers: { accept } });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('the connection to the webhook broke');
      expect(page.body).not.toContain(address);
    }

    const owners = (
      await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=100`, headers: owner.auth })
    ).json();
    const mine = owners.sessions.find((s: { id: string }) => s.id === id);
    expect(mine.error).toBe(`connection to ${address} closed before the response was complete`);
  });

  it('keeps the address of a refused connection out of the public message of a missed deadline', async () => {
    await withAgentOnLatePort(async (port) => {
      const { id } = (await sandbox({ prompt: 'nobody home', deadline_seconds: 2 })).json();
      expect(await outcome(id)).toEqual({ status: 'timeout' });
      expect((await sessionOf(id)).error).toBe(
        'deadline exceeded (2 s); last attempt: the webhook refused the connection',
      );
      const owners = (
        await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=100`, headers: owner.auth })
      ).json();
      expect(owners.sessions.find((s: { id: string }) => s.id === id).error).toBe(
        `deadline exceeded (2 s); last attempt: connection refused by 127.0.0.1:${port}`,
      );
    });
  });

  it('refuses a feed request whose API key is not valid', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/agents/${agent.id}/activity`,
      headers: { authorization: 'Bearer arena_not-a-real-key' },
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('sandbox and feed errors', () => {
  it.each([
    [{ prompt: '' }, /prompt/],
    [{ prompt: 'x', deadline_seconds: 0 }, /deadline_seconds must be at least 1/],
    [{ prompt: 'x', deadline_seconds: 301 }, /deadline_seconds must be at most 300/],
    [{ prompt: 'x', deadline_seconds: 1.5 }, /deadline_seconds/],
    [{}, /prompt/],
  ])('answers 400 for %j and creates nothing', async (payload, detail) => {
    const [{ n: before }] = await t.orm.em
      .getConnection()
      .execute<[{ n: number }]>('select count(*)::int as n from sessions');
    const res = await sandbox(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(detail);
    const [{ n: after }] = await t.orm.em
      .getConnection()
      .execute<[{ n: number }]>('select count(*)::int as n from sessions');
    expect(after).toBe(before);
  });

  it('hides sandbox routes of agents the caller does not own', async () => {
    const stranger = await register(t.app);
    const create = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox`,
      headers: stranger.auth,
      payload: { prompt: 'x' },
    });
    expect(create.statusCode).toBe(404);
    const cancel = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox/sandbox-1/cancel`,
      headers: stranger.auth,
    });
    expect(cancel.statusCode).toBe(404);
    const restart = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/gym/restart`,
      headers: stranger.auth,
    });
    expect(restart.statusCode).toBe(404);
  });

  it('answers 404 for a cancel of an unknown or non-sandbox session', async () => {
    for (const sid of ['sandbox-999999', 'gym-1', 'nonsense']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/agents/${agent.id}/sandbox/${sid}/cancel`,
        headers: owner.auth,
      });
      expect(res.statusCode).toBe(404);
    }
  });

  it('pages the public feed newest first and validates limit and offset', async () => {
    const all = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=100` })).json();
    expect(all.total).toBeGreaterThan(3);
    const ids = all.sessions.map((s: { id: string }) => Number(s.id.split('-')[1]));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const page = (
      await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=2&offset=1` })
    ).json();
    expect(page).toMatchObject({
      agent_id: agent.id,
      agent_name: 'pusher',
      limit: 2,
      offset: 1,
      total: all.total,
      has_more: true,
    });
    expect(page.sessions.map((s: { id: string }) => s.id)).toEqual(
      all.sessions.slice(1, 3).map((s: { id: string }) => s.id),
    );
    const last = (
      await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=100&offset=${all.total - 1}` })
    ).json();
    expect(last.has_more).toBe(false);
    expect(last.sessions).toHaveLength(1);
    const beyond = (
      await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?offset=${all.total}` })
    ).json();
    expect(beyond).toMatchObject({ agent_name: 'pusher', total: all.total, sessions: [], has_more: false });
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'offset=1.5']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?${q}` });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatch(/^(limit|offset) /);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/agents/999999/activity' })).statusCode).toBe(404);
  });
});

/** Awaits a condition on real state (the database, a server's log) rather than sleeping a fixed time. */
