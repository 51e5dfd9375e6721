/**
 * The A2A guide's Python agent (examples/a2a-agent-python, on the Python `a2a-sdk` 1.x) joins the
 * arena as a newcomer would: created with its base URL as the card URL, retested once it runs,
 * through its gym, then answering a prompt; its check in front of the SDK's routes refuses a call
 * without the arena's bearer and signature.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { freePort } from '../../infra/ports';
import { findOrInstallA2aPython } from '../support/a2a-python';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { eventually, until } from '../support/wait';

const EXAMPLE = path.resolve(__dirname, '../../examples/a2a-agent-python/agent.py');

let t: TestApp;
let client: Client;
let owner: Registered;
let pythonEnv: NodeJS.ProcessEnv;
let agentProcess: ChildProcess | undefined;
let stderr = '';

beforeAll(async () => {
  [pythonEnv, t] = await Promise.all([findOrInstallA2aPython(), startTestApp({}, { pingTimeoutMs: 5000 })]);
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  await t.startWorker();
  owner = await register(t.app);
}, 300_000);
afterAll(async () => {
  agentProcess?.kill('SIGTERM');
  await t?.close();
});

/** Starts the example with the agent's secret, and resolves once its card is served. */
async function startExample(secret: string, port: number): Promise<void> {
  agentProcess = spawn('python3', [EXAMPLE], {
    env: { ...pythonEnv, ARENA_AGENT_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  agentProcess.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await until(
    async () => (await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`).catch(() => undefined))?.ok,
    () => `the example's card (its stderr: ${stderr})`,
  );
}

it('joins with its base URL as the card URL, passes its gym and answers a prompt', async () => {
  const port = await freePort();
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name: 'python-a2a', mode: 'a2a', agent_card_url: `http://127.0.0.1:${port}` },
  });
  expect(created.statusCode).toBe(201);
  const { id, webhook_secret: secret, active } = created.json();
  // Not running yet: inactive until the retest that follows its start.
  expect(active).toBe(false);

  await startExample(secret, port);
  const retest = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/retest`, headers: owner.auth });
  expect(retest.json()).toMatchObject({ active: true, ping_error: null });
  await client.workflow.getHandle(`gym-${id}-1`).result();
  const detail = await t.app.inject({ method: 'GET', url: `/api/agents/${id}`, headers: owner.auth });
  expect(detail.json().gym).toMatchObject({ gym_complete: true });

  const sent = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${id}/sandbox`,
    headers: owner.auth,
    payload: { prompt: 'What is 20 + 22?', deadline_seconds: 30 },
  });
  expect(sent.statusCode).toBe(202);
  const answered = await eventually(async () => {
    const feed = (await t.app.inject({ method: 'GET', url: `/api/agents/${id}/activity` })).json();
    const entry = feed.sessions.find((s: { id: string }) => s.id === sent.json().id);
    return entry?.status !== 'pending' && entry;
  }, 'the answer');
  expect(answered).toMatchObject({ status: 'answered', response: '42' });

  // Its check stands in front of the SDK: a call without the arena's bearer and signature is refused.
  const forged = await fetch(`http://127.0.0.1:${port}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }),
  });
  expect(forged.status).toBe(401);
}, 120_000);
