/**
 * Fair capacity: one account cannot starve the others. An account's steps in flight are capped
 * (429), a worker admits no more steps than its slots and queue (503 with Retry-After), a step its
 * busy worker could not start in time is refused rather than ending the session as "workspace lost",
 * scoring never waits behind steps, and old steps keep only what the transcript shows.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { workspaceDirOf } from '../../infra/sandbox/workspaces';
import { addCodingStep } from '../../infra/db/repositories/coding-step.repository';
import { applyRetention } from '../../workflows';
import { register, type Registered, type TestApp } from '../support/test-app';
import { until } from '../support/wait';
import {
  feedEntryOf,
  openCodingSession,
  startCodingArena,
  stepOf,
  type CodingArena,
  type CodingWork,
} from './coding-support';

let arena: CodingArena;
let t: TestApp;

interface Account {
  owner: Registered;
  agent: { id: number; webhook_secret: string };
}
let x: Account;
let y: Account;
let z: Account;

beforeAll(async () => {
  // One step at a time per account; the worker runs one step and lets one wait. One step a session:
  // a step refused because its worker was busy never ran, and must not use it up.
  arena = await startCodingArena(
    {
      ARENA_GYM_RETRY_SECONDS: '3600',
      ARENA_CODING_MAX_STEPS: '1',
      ARENA_CODING_STEPS_PER_ACCOUNT: '1',
      ARENA_CODING_STEP_SLOTS: '1',
      ARENA_CODING_STEP_QUEUE: '1',
      // A step its busy worker has not taken within 2 s is refused (20 s by default).
      ARENA_WORKSPACE_PICKUP_SECONDS: '2',
    },
    'x-agent',
  );
  t = arena.t;
  x = { owner: arena.owner, agent: arena.agent };
  const another = async (name: string): Promise<Account> => {
    const owner = await register(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name, mode: 'pull' },
    });
    return { owner, agent: created.json() };
  };
  y = await another('y-agent');
  z = await another('z-agent');
}, 120_000);
afterAll(() => arena?.close());

const session = ({ owner, agent }: Account): Promise<CodingWork> => openCodingSession(t, owner, agent);

const exec = (w: CodingWork, command: string) => stepOf(t, w.sandbox)('POST', 'exec', { command, timeout_seconds: 60 });
/**
 * A step that holds its slot until the test opens its gate (a file the test writes into the
 * session's workspace), instead of for a fixed time the test hopes is long enough.
 */
const gated = (out: string) => `until [ -e .gate ]; do sleep 0.05; done; echo ${out}`;
const openGate = (w: CodingWork) =>
  fs.writeFile(path.join(workspaceDirOf(Number(w.work_id.split('-')[1]), t.config.sandbox), '.gate'), '');

/** Resolves once the session has a step written and not yet run: the API has admitted it. */
const admitted = (w: CodingWork) =>
  until(
    async () => {
      const [row] = await t.orm.em
        .fork()
        .getConnection()
        .execute(`select count(*)::int as n from coding_steps where session_id = ? and n is null`, [
          Number(w.work_id.split('-')[1]),
        ]);
      return row?.n > 0;
    },
    `a step of ${w.work_id} in flight`,
    { timeoutMs: 10_000, everyMs: 20 },
  );

it('caps an account’s steps in flight, and a worker’s, without starving the other accounts', async () => {
  const [wx, wy, wz] = [await session(x), await session(y), await session(z)];
  const xRunning = exec(wx, gated('x'));
  await admitted(wx);
  // X's next step waits for its first: 429.
  const xAgain = await exec(wx, 'echo again');
  expect([xAgain.statusCode, xAgain.headers['retry-after']]).toEqual([429, '1']);
  expect(xAgain.json().detail).toBe('this account already has 1 coding steps running, the most it may have at once');
  // Y gets the worker's queue place and runs once X's step is done.
  const yQueued = exec(wy, 'echo y');
  await admitted(wy);
  // Z finds the worker's slot and queue taken: 503, try again.
  const zRefused = await exec(wz, 'echo z');
  expect([zRefused.statusCode, zRefused.headers['retry-after']]).toEqual([503, '5']);
  expect(zRefused.json().detail).toBe(
    "the session's sandbox worker is busy with other sessions' steps; this step did not run, send it again shortly",
  );
  await openGate(wx);
  expect((await xRunning).json().stdout).toBe('x\n');
  expect((await yQueued).json().stdout).toBe('y\n');
  expect((await exec(wz, 'echo z')).json().stdout).toBe('z\n');
  for (const w of [wx, wy, wz]) await stepOf(t, w.sandbox)('POST', 'submit');
}, 60_000);

it('scores a session at once while the worker’s step slots are full, and refuses a step its busy worker could not start in time', async () => {
  const [wx, wy, wz] = [await session(x), await session(y), await session(z)];
  const started = Date.now();
  const xLong = exec(wx, gated('x'));
  await admitted(wx);
  // Z's submit: its scoring runs on the worker's end queue, not behind X's step.
  expect((await stepOf(t, wz.sandbox)('POST', 'submit')).json()).toMatchObject({ status: 'failed', tests_passed: 4 });
  expect(Date.now() - started).toBeLessThan(20_000);
  // Y's step waits in the queue; after 2 s not picked up, the worker still answers: the step is
  // refused (it never ran) and the session goes on.
  const yWaiting = await exec(wy, 'echo y');
  expect([yWaiting.statusCode, yWaiting.json().detail]).toEqual([
    503,
    "the session's sandbox worker is busy with other sessions' steps; this step did not run, send it again shortly",
  ]);
  expect((await feedEntryOf(t, y.agent.id, wy.work_id)).status).toBe('pending');
  await openGate(wx);
  expect((await xLong).json().stdout).toBe('x\n');
  // The refused step did not use up Y's one step.
  expect((await exec(wy, 'echo y')).json().stdout).toBe('y\n');
  for (const w of [wx, wy]) await stepOf(t, w.sandbox)('POST', 'submit');
}, 120_000);

it('keeps a step’s full output for the retention period, then only what the transcript shows', async () => {
  const w = await session(x);
  const loud = await exec(w, 'head -c 20000 /dev/zero | tr "\\\\0" a');
  expect(loud.json().stdout).toHaveLength(20_000);
  await stepOf(t, w.sandbox)('POST', 'submit');
  const sessionId = Number(w.work_id.split('-')[1]);
  const db = t.orm.em.fork().getConnection();
  const stepRow = async () =>
    (
      await db.execute(`select result, trimmed_at from coding_steps where session_id = ? and kind = 'exec'`, [
        sessionId,
      ])
    )[0];
  const transcript = (await feedEntryOf(t, x.agent.id, w.work_id)).response;
  // A step whose API process died before asking the workflow: written, never run.
  const neverRan = await addCodingStep(t.orm.em.fork(), sessionId, 'exec', { command: 'true' });

  const client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  const retain = () =>
    client.workflow.execute(applyRetention, {
      taskQueue: t.config.taskQueue,
      workflowId: `retention-test-${sessionId}-${Date.now()}`,
      args: [{ codingStepDays: 30 }],
    });
  // Within the period: kept whole.
  await retain();
  expect((await stepRow())?.result.stdout).toHaveLength(20_000);
  // Past it: cut to what the transcript shows; the feed's transcript is unchanged.
  await db.execute(`update coding_sessions set ended_at = now() - interval '31 days' where session_id = ?`, [
    sessionId,
  ]);
  await expect(retain()).resolves.toMatch(/^\d+ coding steps cut to their transcript$/);
  const trimmed = await stepRow();
  expect(trimmed?.trimmed_at).not.toBeNull();
  expect(trimmed?.result.stdout).toBe(`${'a'.repeat(2000)}\n… (18000 more characters)`);
  expect(trimmed?.result.exit_code).toBe(0);
  expect(await db.execute(`select id from coding_steps where id = ?`, [neverRan])).toEqual([]);
  expect((await feedEntryOf(t, x.agent.id, w.work_id)).response).toBe(transcript);
}, 60_000);
