/**
 * The a2a connection mode against real A2A agents built on the official SDK's servers: a 1.0 agent
 * answering with a message, one whose task completes seconds later, one whose task never ends, one
 * whose task fails, and an agent that speaks only A2A 0.3. Real PostgreSQL, Temporal and loopback HTTP.
 */
import { createHmac } from 'node:crypto';
import { Client } from '@temporalio/client';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { startA2aAgent, type A2aAgent, type A2aAgentOptions, type ReceivedCall } from '../support/a2a-agents';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

let t: TestApp;
let client: Client;
/** The account of the agent joined last. */
let owner: Registered;
const agents: A2aAgent[] = [];

/** Set once the joining tests, which watch the gym, are done: later agents start past it. */
let pastTheGym = false;

beforeAll(async () => {
  t = await startTestApp({}, { pingTimeoutMs: 5000, pastTheGym: () => pastTheGym });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  await t.startWorker();
}, 60_000);
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await t.close();
});

const hmac = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');
const rpc = (agent: A2aAgent, method: string) => agent.calls.filter((c) => c.rpcMethod === method);

async function a2aAgent(options: A2aAgentOptions): Promise<A2aAgent> {
  const agent = await startA2aAgent(options);
  agents.push(agent);
  return agent;
}

/**
 * Registers an a2a agent for `peer` (an account of its own: pings are rate limited per account) and
 * waits for its gym, so the gym's messages are out of the way (once past the joining tests, the
 * agent starts past the gym).
 */
async function joined(peer: A2aAgent): Promise<{ id: number; webhook_secret: string; active: boolean }> {
  owner = await register(t.app);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name: 'a2a agent', mode: 'a2a', agent_card_url: peer.cardUrl },
  });
  expect(res.statusCode).toBe(201);
  const created = res.json();
  if (created.active && !pastTheGym) await client.workflow.getHandle(`gym-${created.id}-1`).result();
  return created;
}

async function sandbox(agentId: number, payload: object) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agentId}/sandbox`,
    headers: owner.auth,
    payload,
  });
  expect(res.statusCode).toBe(202);
  const pending = res.json<{ id: string }>();
  const outcome = await client.workflow.getHandle(deliveryWorkflowId(Number(pending.id.split('-')[1]))).result();
  const feed = (
    await t.app.inject({ method: 'GET', url: `/api/agents/${agentId}/activity`, headers: owner.auth })
  ).json();
  const session = feed.sessions.find((s: { id: string }) => s.id === pending.id);
  return { id: pending.id, outcome, session };
}

/**
 * Points a joined agent's stored card at `peer`'s interface: an agent that answers the ping and
 * the gym at once, then behaves as `peer` does (a never-ending task would hold the gym for six deadlines).
 */
async function pointAt(agentId: number, peer: A2aAgent): Promise<void> {
  await t.orm.em
    .getConnection()
    .execute(
      `update agents set a2a_card = jsonb_set(a2a_card, '{supportedInterfaces,0,url}', to_jsonb(?::text)) where id = ?`,
      [`${peer.baseUrl}/a2a/jsonrpc`, agentId],
    );
}

function expectSigned(call: ReceivedCall, secret: string, deliveryId: string) {
  expect(call.headers.authorization).toBe(`Bearer ${secret}`);
  expect(call.headers['x-arena-signature']).toBe(hmac(secret, call.body));
  expect(call.headers['x-arena-delivery']).toBe(deliveryId);
}

describe('joining', () => {
  it('reads the card, pings with one signed message, becomes active and passes the gym', async () => {
    const peer = await a2aAgent({ behaviour: { reply: 'message' } });
    const created = await joined(peer);
    expect(created).toMatchObject({ mode: 'a2a', agent_card_url: peer.cardUrl, active: true, ping_error: null });
    expect(created).not.toHaveProperty('webhook_url');
    expect(peer.calls[0]).toMatchObject({ method: 'GET', path: '/.well-known/agent-card.json' });
    const [ping] = rpc(peer, 'SendMessage');
    expect(ping!.headers['a2a-version']).toBe('1.0');
    expectSigned(ping!, created.webhook_secret, 'ping-1');
    expect(ping!.params).toMatchObject({
      message: { role: 'ROLE_USER', parts: [{ text: 'ping' }], metadata: { category: 'ping', deadline_seconds: 15 } },
    });

    const detail = (
      await t.app.inject({ method: 'GET', url: `/api/agents/${created.id}`, headers: owner.auth })
    ).json();
    expect(detail).toMatchObject({
      mode: 'a2a',
      online: true,
      gym: { total: 6, done: 6, errors: 0, gym_complete: true },
    });
    // The gym's six prompts went as messages too, each signed with its own delivery id.
    const gym = rpc(peer, 'SendMessage').filter((c) => String(c.headers['x-arena-delivery']).startsWith('gym-'));
    expect(gym).toHaveLength(6);
    for (const call of gym) expectSigned(call, created.webhook_secret, String(call.headers['x-arena-delivery']));
  });

  it('names what is wrong with a card it cannot use, and leaves the agent inactive; finds one from the base URL', async () => {
    const peer = await a2aAgent({ behaviour: { reply: 'message' } });
    const missing = await joined({ ...peer, cardUrl: `${peer.baseUrl}/no-card.json` });
    expect(missing).toMatchObject({
      active: false,
      ping_error: `the agent card at ${peer.baseUrl}/no-card.json answered HTTP 404`,
    });

    // The agent's base URL, as A2A clients are given one: the card is found at the well-known path.
    const based = await joined({ ...peer, cardUrl: peer.baseUrl });
    expect(based).toMatchObject({ active: true, ping_error: null });

    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'no card', mode: 'a2a' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toMatch(/agent_card_url.*is required for a2a agents/);
  });

  it('re-reads the card when its URL changes and on retest, and refuses a webhook_url', async () => {
    const first = await a2aAgent({ behaviour: { reply: 'message' } });
    const second = await a2aAgent({ behaviour: { reply: 'message' } });
    const created = await joined(first);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/api/agents/${created.id}`,
      headers: owner.auth,
      payload: { agent_card_url: second.cardUrl },
    });
    expect(patch.statusCode).toBe(200);
    expect(rpc(second, 'SendMessage')).toHaveLength(1);
    const retest = await t.app.inject({ method: 'POST', url: `/api/agents/${created.id}/retest`, headers: owner.auth });
    expect(retest.json()).toEqual({ id: created.id, active: true, ping_error: null });
    expect(rpc(second, 'SendMessage')).toHaveLength(2);

    const webhook = await t.app.inject({
      method: 'PATCH',
      url: `/api/agents/${created.id}`,
      headers: owner.auth,
      payload: { webhook_url: 'http://127.0.0.1:9/hook' },
    });
    expect(webhook.statusCode).toBe(409);
    expect(webhook.json().detail).toBe('a2a agents have no webhook_url; create a push agent instead');
  });
});

describe('deliveries', () => {
  beforeAll(() => {
    pastTheGym = true;
  });

  it('sends the prompt as a message with its metadata, and records the reply’s text', async () => {
    const peer = await a2aAgent({ behaviour: { reply: 'message' } });
    const created = await joined(peer);
    const { id, outcome, session } = await sandbox(created.id, {
      prompt: 'What is 6 x 7?',
      category: 'math',
      deadline_seconds: 30,
    });
    expect(outcome).toEqual({ status: 'answered' });
    expect(session).toMatchObject({ status: 'answered', response: 'echo: What is 6 x 7?' });
    const [call] = rpc(peer, 'SendMessage').filter((c) => c.headers['x-arena-delivery'] === id);
    expectSigned(call!, created.webhook_secret, id);
    expect(call!.params).toMatchObject({
      message: {
        messageId: id,
        parts: [{ text: 'What is 6 x 7?' }],
        metadata: { prompt_id: expect.any(Number), category: 'math', deadline_seconds: 30 },
      },
      configuration: { returnImmediately: true },
    });
  });

  it('follows a task that completes seconds later and records its artifact', async () => {
    const peer = await a2aAgent({ behaviour: { reply: 'task', afterMs: 1500 } });
    const created = await joined(peer);
    const { id, outcome, session } = await sandbox(created.id, { prompt: 'slow one', deadline_seconds: 30 });
    expect(outcome).toEqual({ status: 'answered' });
    expect(session).toMatchObject({ status: 'answered', response: 'echo: slow one' });
    expect(session.latency_ms).toBeGreaterThanOrEqual(1500);
    expect(rpc(peer, 'GetTask').filter((c) => c.headers['x-arena-delivery'] === id).length).toBeGreaterThan(1);
    // Only the ping's task was cancelled (nobody reads it); the delivery's ran to its end.
    expect(rpc(peer, 'CancelTask').filter((c) => c.headers['x-arena-delivery'] === id)).toEqual([]);
  });

  it('cancels a task that never completes at the deadline, and records a timeout no earlier', async () => {
    const peer = await a2aAgent({ behaviour: { reply: 'never' } });
    const quick = await a2aAgent({ behaviour: { reply: 'message' } });
    const created = await joined(quick);
    await pointAt(created.id, peer);
    const started = Date.now();
    const { id, outcome, session } = await sandbox(created.id, { prompt: 'never', deadline_seconds: 3 });
    expect(outcome).toEqual({ status: 'timeout' });
    expect(session.status).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
    expect(rpc(peer, 'CancelTask').filter((c) => c.headers['x-arena-delivery'] === id)).toHaveLength(1);
    expect(peer.cancelled).toHaveLength(1);
  });

  it("records a failed task as the agent's error with the task's message", async () => {
    const quick = await a2aAgent({ behaviour: { reply: 'message' } });
    const failing = await a2aAgent({ behaviour: { reply: 'fail', reason: 'out of tokens' } });
    const created = await joined(quick);
    await pointAt(created.id, failing);
    const { outcome, session } = await sandbox(created.id, { prompt: 'fail please', deadline_seconds: 30 });
    expect(outcome).toEqual({ status: 'error' });
    expect(session).toMatchObject({ status: 'error', error: "the agent's task ended failed: out of tokens" });
  });
  it('records an answer that is not A2A as the agent’s error: its start in the feed, more for the owner', async () => {
    const quick = await a2aAgent({ behaviour: { reply: 'message' } });
    const created = await joined(quick);
    // The card's address answers every method with the card, not JSON-RPC.
    await t.orm.em
      .getConnection()
      .execute(
        `update agents set a2a_card = jsonb_set(a2a_card, '{supportedInterfaces,0,url}', to_jsonb(?::text)) where id = ?`,
        [quick.cardUrl, created.id],
      );
    const { id, outcome, session } = await sandbox(created.id, { prompt: 'anyone there?', deadline_seconds: 30 });
    expect(outcome).toEqual({ status: 'error' });
    // The owner reads the SDK's account of it; the public feed its start, after what it was.
    expect(session.error).toMatch(/^HTTP error for SendMessage! Status: 404/);
    const feed = (await t.app.inject({ method: 'GET', url: `/api/agents/${created.id}/activity` })).json();
    const error: string = feed.sessions.find((s: { id: string }) => s.id === id).error;
    expect(error).toMatch(/^the agent answered with an A2A error: HTTP error for SendMessage! Status: 404/);
    expect(error.length).toBeLessThanOrEqual('the agent answered with an A2A error: '.length + 301);
  });

  it('records a task that asks for input as the agent’s error, and cancels it', async () => {
    const quick = await a2aAgent({ behaviour: { reply: 'message' } });
    const asking = await a2aAgent({ behaviour: { reply: 'input' } });
    const created = await joined(quick);
    await pointAt(created.id, asking);
    const { id, outcome, session } = await sandbox(created.id, {
      prompt: 'is 1900 a leap year?',
      deadline_seconds: 30,
    });
    expect(outcome).toEqual({ status: 'error' });
    expect(session.error).toBe("the agent's task asked for more (input-required), which the arena does not give");
    expect(rpc(asking, 'CancelTask').filter((c) => c.headers['x-arena-delivery'] === id)).toHaveLength(1);
  });
});

describe('an agent that speaks only A2A 0.3', () => {
  it('is called with message/send and tasks/get, and its task’s answer recorded', async () => {
    const peer = await a2aAgent({ version: '0.3', behaviour: { reply: 'task', afterMs: 500 } });
    const created = await joined(peer);
    expect(created).toMatchObject({ active: true, ping_error: null });
    const { id, outcome, session } = await sandbox(created.id, { prompt: 'old protocol', deadline_seconds: 30 });
    expect(outcome).toEqual({ status: 'answered' });
    expect(session).toMatchObject({ status: 'answered', response: 'echo: old protocol' });
    const [sent] = rpc(peer, 'message/send').filter((c) => c.headers['x-arena-delivery'] === id);
    expect(sent!.headers['a2a-version']).toBe('0.3');
    expectSigned(sent!, created.webhook_secret, id);
    expect(sent!.params).toMatchObject({
      message: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'old protocol' }] },
      configuration: { blocking: false },
    });
    expect(rpc(peer, 'tasks/get').length).toBeGreaterThan(0);
    expect(rpc(peer, 'GetTask')).toEqual([]);
  });
});
