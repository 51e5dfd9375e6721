/**
 * Coding sessions end to end as an owner runs them: the example agent (examples/sandbox-agent)
 * behind `arena-runner run` (pull) and `arena-runner push` (a webhook), against the app over HTTP,
 * its steps isolated by bubblewrap on the worker. It passes the task it knows and honestly fails
 * another.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../infra/ports';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { killRunners, startRunner } from '../runner/support/cli';
import { removeSandboxDir } from './coding-support';
import { eventually, until } from '../support/wait';

const EXAMPLE_AGENT = [process.execPath, path.resolve(__dirname, '..', '..', 'examples', 'sandbox-agent', 'agent.mjs')];

let t: TestApp;
let owner: Registered;
let baseUrl: string;
let sandboxDir: string;

beforeAll(async () => {
  sandboxDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-coding-'));
  fs.chmodSync(sandboxDir, 0o711);
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp(
    // The example agent answers only coding sessions: its gym fails, and is not tried again within the test.
    { ARENA_GYM_RETRY_SECONDS: '3600', ARENA_SANDBOX_DIR: sandboxDir, ARENA_PUBLIC_URL: baseUrl },
    { pingTimeoutMs: 5000 },
  );
  owner = await register(t.app);
  await t.startWorker();
  await t.app.listen({ port, host: '127.0.0.1' });
}, 120_000);
afterAll(async () => {
  killRunners();
  await t?.close();
  await removeSandboxDir(sandboxDir);
});

const createAgent = async (payload: object) =>
  (await t.app.inject({ method: 'POST', url: '/api/agents', headers: owner.auth, payload })).json();

async function startSession(agentId: number, task: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agentId}/sandbox`,
    headers: owner.auth,
    payload: { task },
  });
  expect(res.statusCode).toBe(202);
  return res.json().id;
}

async function endedSession(agentId: number, id: string): Promise<{ status: string; response: string }> {
  let entry: { status: string; response: string } | undefined;
  await eventually(
    async () => {
      const feed = (await t.app.inject({ method: 'GET', url: `/api/agents/${agentId}/activity?limit=100` })).json();
      entry = feed.sessions.find((s: { id: string }) => s.id === id);
      // Ended, and the runner's summary is in (it answers once its command is done).
      return (
        entry !== undefined &&
        !['pending', 'running'].includes(entry.status) &&
        /^(python\/leap-year:|no scripted fix for this task)/.test(entry.response ?? '')
      );
    },
    () =>
      `${id} to end with its summary (last seen: ${entry?.status}, ${JSON.stringify(entry?.response)?.slice(0, 300)})`,
    90_000,
  );
  return entry!;
}

it('pull: the example agent behind arena-runner run passes python/leap-year, and fails a task it does not know', async () => {
  const agent = await createAgent({ name: 'example-puller', mode: 'pull' });
  const runner = startRunner(
    ['run', '--base-url', baseUrl, '--agent', String(agent.id), '--wait', '1', '--', ...EXAMPLE_AGENT],
    { ARENA_AGENT_SECRET: agent.webhook_secret },
  );
  const passed = await endedSession(agent.id, await startSession(agent.id, 'python/leap-year')).catch((err) => {
    throw new Error(`${err.message}\nrunner: ${runner.stderr()}`);
  });
  expect(passed.status).toBe('passed');
  expect(passed.response).toMatch(/^python\/leap-year: applied the Gregorian rule/);
  expect(passed.response).toMatch(/\*\*passed\*\*: 8 of 8 hidden tests passed/);

  const failed = await endedSession(agent.id, await startSession(agent.id, 'javascript/lru-cache'));
  expect(failed.status).toBe('failed');
  expect(failed.response).toMatch(/^no scripted fix for this task; submitted the workspace unchanged/);
  expect(failed.response).toMatch(/\*\*failed\*\*: \d of \d+ hidden tests passed/);

  runner.child.kill('SIGINT');
  expect(await runner.exited).toEqual({ code: 0, signal: null });
  expect(runner.stderr()).not.toContain(agent.webhook_secret);
}, 180_000);

it('push: the example agent behind arena-runner push passes python/leap-year', async () => {
  const port = await freePort();
  const agent = await createAgent({ name: 'example-pusher', webhook_url: `http://127.0.0.1:${port}/` });
  const runner = startRunner(['push', '--port', String(port), '--', ...EXAMPLE_AGENT], {
    ARENA_AGENT_SECRET: agent.webhook_secret,
  });
  await until(
    () => runner.stderr().includes(`listening on http://127.0.0.1:${port}/`),
    'the webhook to listen',
    20_000,
  );
  const retest = await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/retest`, headers: owner.auth });
  expect(retest.json()).toMatchObject({ active: true });

  const passed = await endedSession(agent.id, await startSession(agent.id, 'python/leap-year')).catch((err) => {
    throw new Error(`${err.message}\nrunner: ${runner.stderr()}`);
  });
  expect(passed.status).toBe('passed');
  expect(passed.response).toMatch(/^python\/leap-year: applied the Gregorian rule/);

  runner.child.kill('SIGTERM');
  expect(await runner.exited).toEqual({ code: 0, signal: null });
  expect(runner.stderr()).not.toContain(agent.webhook_secret);
}, 180_000);
