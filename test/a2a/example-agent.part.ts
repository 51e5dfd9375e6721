/**
 * The example A2A agent (examples/a2a-agent/agent.mjs), run as its owner runs it, against the real
 * arena: the agent is created first (nothing listens yet, so its ping fails), the example is started
 * with the secret creation showed, a retest makes it active and it passes the gym. It refuses calls
 * not signed with that secret, speaks 0.3 too, and with ANSWER_AS_TASK and ANSWER_COMMAND answers a
 * sandbox prompt through a task. Real PostgreSQL, Temporal, loopback HTTP and a child process.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { GUIDES_DIR } from '../../api/discovery/guides';
import { freePort } from '../../infra/ports';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { until } from '../support/wait';

const EXAMPLE = path.resolve(__dirname, '..', '..', 'examples', 'a2a-agent', 'agent.mjs');

interface RunningExample {
  cardUrl: string;
  rpcUrl: string;
  stderr(): string;
  stop(): Promise<void>;
}

let t: TestApp;
let client: Client;
let owner: Registered;
/** The agent the first test creates; the later ones call its example or move it to another. */
let agent: { id: number; webhook_secret: string };
let example: RunningExample;
const examples: RunningExample[] = [];

beforeAll(async () => {
  t = await startTestApp({}, { pingTimeoutMs: 5000, pastTheGym: false });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  await t.startWorker();
  owner = await register(t.app);
}, 60_000);
afterAll(async () => {
  await Promise.all(examples.map((e) => e.stop()));
  await t?.close();
});

/** Starts the example on `port` with `env` (and nothing else of this process's environment but PATH). */
async function startExample(port: number, env: Record<string, string>): Promise<RunningExample> {
  const child = spawn(process.execPath, [EXAMPLE], {
    env: { PATH: process.env.PATH, PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const running: RunningExample = {
    cardUrl: `${base}/.well-known/agent-card.json`,
    rpcUrl: `${base}/a2a/jsonrpc`,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  examples.push(running);
  await until(
    () => stderr.includes(`listening on port ${port}`) || child.exitCode !== null,
    () => `the example to listen; its stderr: ${stderr}`,
  );
  expect(child.exitCode).toBeNull();
  return running;
}

function api(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) {
  return t.app.inject({ method, url, headers: owner.auth, ...(payload ? { payload } : {}) });
}

const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

/** A JSON-RPC call to the example, signed (or not) as the test says. */
async function call(body: object, headers: Record<string, string>) {
  const res = await fetch(example.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

describe('the example A2A agent', () => {
  it('joins as an owner joins it: created, started with the secret, retested, and through the gym', async () => {
    const port = await freePort();
    const cardUrl = `http://127.0.0.1:${port}/.well-known/agent-card.json`;
    const created = await api('POST', '/api/agents', {
      name: 'example a2a agent',
      mode: 'a2a',
      agent_card_url: cardUrl,
    });
    expect(created.statusCode).toBe(201);
    // Nothing listens yet: the ping cannot read the card, and says so.
    expect(created.json()).toMatchObject({
      mode: 'a2a',
      agent_card_url: cardUrl,
      active: false,
      ping_error: expect.stringContaining(`the agent card at ${cardUrl} could not be read`),
    });
    agent = created.json();

    example = await startExample(port, { ARENA_AGENT_SECRET: agent.webhook_secret });
    const retest = await api('POST', `/api/agents/${agent.id}/retest`);
    expect(retest.json()).toEqual({ id: agent.id, active: true, ping_error: null });
    await client.workflow.getHandle(`gym-${agent.id}-1`).result();

    const detail = (await api('GET', `/api/agents/${agent.id}`)).json();
    expect(detail).toMatchObject({ active: true, gym: { total: 6, done: 6, errors: 0, gym_complete: true } });
    const feed = (await api('GET', `/api/agents/${agent.id}/activity?limit=20`)).json();
    const gym = feed.sessions.filter((s: { kind: string }) => s.kind === 'gym');
    expect(gym).toHaveLength(6);
    for (const session of gym) expect(session).toMatchObject({ status: 'answered', error: null });
    expect(gym.every((s: { response: string }) => s.response.trim() !== '')).toBe(true);
    // The example's rules answer five of the six as asked; the sixth gets its fallback.
    expect(gym.map((s: { response: string }) => s.response)).toEqual(
      expect.arrayContaining(['ready', '42', 'naïve café, Zürich, 東京, ✓', '{"ok": true}', '60']),
    );
    // The retest's ping (the second: creation's never reached it) and the six prompts, as messages.
    expect(example.stderr()).toContain('ping-2: answered with a message');
    expect(example.stderr().match(/^gym-\d+: answered with a message$/gm)).toHaveLength(6);
  });

  it('refuses a call without the agent secret or with a bad signature (401), and answers a signed one', async () => {
    const secret = agent.webhook_secret;
    const send = {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: { messageId: 'probe-1', role: 'ROLE_USER', parts: [{ text: 'What is 2 + 3?' }], metadata: {} },
        configuration: { returnImmediately: true },
      },
    };
    const raw = JSON.stringify(send);
    const bearer = `Bearer ${secret}`;
    const v1 = { 'a2a-version': '1.0' };
    const refusals = [
      {},
      { ...v1, authorization: bearer },
      { ...v1, authorization: bearer, 'x-arena-signature': hmac(secret, `${raw} `) },
      { ...v1, authorization: bearer, 'x-arena-signature': hmac('agsec_another', raw) },
      { ...v1, authorization: 'Bearer agsec_another', 'x-arena-signature': hmac(secret, raw) },
      { ...v1, 'x-arena-signature': hmac(secret, raw) },
    ];
    for (const headers of refusals) {
      const refused = await call(send, headers);
      expect({ headers, status: refused.status }).toEqual({ headers, status: 401 });
      expect(refused.json).toEqual({ error: 'not signed with this agent secret' });
    }

    const answered = await call(send, { ...v1, authorization: bearer, 'x-arena-signature': hmac(secret, raw) });
    expect(answered.status).toBe(200);
    expect(answered.json.result.message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: '5' }] });

    // A 0.3 caller (no A2A-Version header) is served through the SDK's compatibility layer.
    const legacy = {
      jsonrpc: '2.0',
      id: 2,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: 'probe-2',
          role: 'user',
          parts: [{ kind: 'text', text: 'What is 6 x 7?' }],
        },
        configuration: { blocking: false },
      },
    };
    const old = await call(legacy, {
      authorization: bearer,
      'x-arena-signature': hmac(secret, JSON.stringify(legacy)),
    });
    expect(old.status).toBe(200);
    expect(old.json.result).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: '42' }] });
    const card = await (await fetch(example.cardUrl)).json();
    expect(card).toMatchObject({ protocolVersion: '0.3', url: example.rpcUrl, preferredTransport: 'JSONRPC' });
  });

  it('with ANSWER_AS_TASK=1 and ANSWER_COMMAND, answers a sandbox prompt through a task', async () => {
    const tasker = await startExample(await freePort(), {
      ARENA_AGENT_SECRET: agent.webhook_secret,
      ANSWER_AS_TASK: '1',
      ANSWER_COMMAND: 'tr a-z A-Z',
    });
    // The agent moves to it: a new card URL is read and pinged at once.
    const moved = await api('PATCH', `/api/agents/${agent.id}`, { agent_card_url: tasker.cardUrl });
    expect(moved.statusCode).toBe(200);
    expect((await api('GET', `/api/agents/${agent.id}`)).json()).toMatchObject({ active: true, ping_error: null });

    const res = await api('POST', `/api/agents/${agent.id}/sandbox`, {
      prompt: 'Say hello in French.',
      deadline_seconds: 30,
    });
    expect(res.statusCode).toBe(202);
    const { id } = res.json<{ id: string }>();
    const outcome = await client.workflow.getHandle(deliveryWorkflowId(Number(id.split('-')[1]))).result();
    expect(outcome).toEqual({ status: 'answered' });
    const feed = (await api('GET', `/api/agents/${agent.id}/activity`)).json();
    expect(feed.sessions.find((s: { id: string }) => s.id === id)).toMatchObject({
      status: 'answered',
      response: 'SAY HELLO IN FRENCH.',
      error: null,
    });
    expect(tasker.stderr()).toMatch(new RegExp(`^${id}: answered through task [0-9a-f-]+$`, 'm'));
  });

  it('is shown whole in the A2A guide, as this test runs it', () => {
    const guide = readFileSync(path.join(GUIDES_DIR, 'a2a.md'), 'utf8');
    const blocks = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(readFileSync(EXAMPLE, 'utf8'));
  });
});
