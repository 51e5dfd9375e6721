/**
 * A coding session whose worker dies: the worker that prepared the workspace is a child process,
 * killed with SIGKILL after the agent's first step; another worker takes the session's workflow,
 * the next step finds nobody serving the dead worker's queue, and the session ends once, as
 * `error` ("workspace lost"), instead of hanging.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { WorkerProcess, workerEnv } from '../support/worker-process';
import { codingWork, removeSandboxDir, stepOf } from './coding-support';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';

let t: TestApp;
let client: Client;
let owner: Registered;
let agent: { id: number; webhook_secret: string };
let sandboxDir: string;
let doomed: WorkerProcess;

beforeAll(async () => {
  await ensureBuilt();
  sandboxDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-coding-'));
  fs.chmodSync(sandboxDir, 0o711);
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1', ARENA_SANDBOX_DIR: sandboxDir });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  // Its steps wait 2 s, not 20, to be taken before it counts as gone.
  doomed = new WorkerProcess(workerEnv(t, { ARENA_SANDBOX_DIR: sandboxDir, ARENA_WORKSPACE_PICKUP_SECONDS: '2' }));
  await doomed.ready;
  owner = await register(t.app);
  agent = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'lost', mode: 'pull' },
    })
  ).json();
}, BUILD_TIMEOUT_MS + 180_000);
afterAll(async () => {
  await doomed?.kill();
  await t?.close();
  await removeSandboxDir(sandboxDir);
});

it('ends the session as error, workspace lost, recorded once, when the worker holding the workspace dies', async () => {
  const started = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/sandbox`,
    headers: owner.auth,
    payload: { task: 'python/leap-year' },
  });
  const work = await codingWork(t, agent, started.json().id);
  const step = stepOf(t, work.sandbox);
  expect((await step('POST', 'exec', { command: 'echo working' })).json().stdout).toBe('working\n');

  await doomed.kill();
  await t.startWorker();

  const lost = await step('POST', 'exec', { command: 'echo still there?' });
  expect([lost.statusCode, lost.json().detail]).toEqual([409, 'workspace lost']);
  expect(await client.workflow.getHandle(deliveryWorkflowId(Number(work.work_id.split('-')[1]))).result()).toEqual({
    status: 'error',
  });
  const entry = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=100` }))
    .json()
    .sessions.find((s: { id: string }) => s.id === work.work_id);
  expect(entry).toMatchObject({ status: 'error', error: 'workspace lost' });
  const after = await step('POST', 'submit');
  expect([after.statusCode, after.json().detail]).toEqual([409, 'the session has ended (error)']);
  const [row] = await t.orm.em
    .getConnection()
    .execute('select steps, ended_at from coding_sessions where session_id = ?', [Number(work.work_id.split('-')[1])]);
  expect(row?.steps).toBe(1);
  expect(row?.ended_at).not.toBeNull();
}, 180_000);
