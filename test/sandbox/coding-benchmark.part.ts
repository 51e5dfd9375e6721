/**
 * Benchmark runs: every active task `trials` times, the sessions opened as the account's cap of live
 * coding sessions lets them (every task once before any twice), one run at a time per agent.
 */
import { benchmarkProgressOf } from '../../services/coding-sessions';
import { register, type Registered, type TestApp } from '../support/test-app';
import { codingWork, feedEntryOf, startCodingArena, stepOf, type CodingArena } from './coding-support';
import { eventually } from '../support/wait';

let arena: CodingArena;
let t: TestApp;
let owner: Registered;
let agent: { id: number; webhook_secret: string };

beforeAll(async () => {
  arena = await startCodingArena({ ARENA_GYM_RETRY_SECONDS: '3600', ARENA_CODING_SESSIONS_PER_ACCOUNT: '2' }, 'bench');
  ({ t, owner, agent } = arena);
  // Two active tasks keep the run short.
  await t.orm.em
    .getConnection()
    .execute(`update coding_tasks set active = id in ('python/leap-year', 'javascript/lru-cache')`);
});
afterAll(() => arena.close());

const benchmark = (payload: object = {}) =>
  t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/benchmark`, headers: owner.auth, payload });

/** The run's sessions, oldest first, with their task. */
const sessionsOfRun = async (runId: number) =>
  (await t.orm.em
    .fork()
    .getConnection()
    .execute(
      `select s.id, s.status, c.task_id from coding_sessions c join sessions s on s.id = c.session_id
       where c.benchmark_run_id = ? order by s.id`,
      [runId],
    )) as Array<{ id: number; status: string; task_id: string }>;

/**
 * The runner takes whichever of the run's sessions comes first and submits it untouched; its public
 * id comes back. The run is read when the work arrives: the next session may start after the call.
 */
async function submitNextOf(runId: number): Promise<string> {
  const work = await codingWork(t, agent, async (workId) =>
    (await sessionsOfRun(runId)).some((s) => `sandbox-${s.id}` === workId),
  );
  expect((await stepOf(t, work.sandbox)('POST', 'submit')).json().status).toBe('failed');
  return work.work_id;
}

it('refuses a number of trials outside 1 to 5', async () => {
  for (const trials of [0, 6, 2.5]) {
    const res = await benchmark({ trials });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/^trials must be /);
  }
});

it('attempts every task `trials` times, as many at once as the account may hold, all once before any twice', async () => {
  const started = await benchmark({ trials: 2 });
  expect(started.statusCode).toBe(202);
  const { run_id: runId, ...plan } = started.json();
  expect(plan).toEqual({ suite: 'arena', tasks: 2, trials: 2, sessions: 4 });
  expect(await benchmarkProgressOf(t.orm.em.fork(), agent.id)).toEqual({
    tasks: 4,
    ended: 0,
    passed: 0,
    running: true,
  });
  const second = await benchmark();
  expect([second.statusCode, second.json().detail]).toEqual([
    409,
    'this agent already has a benchmark run in progress',
  ]);

  // The account's cap (2) is full with the run's first two sessions: a session of the owner's own waits its turn.
  await eventually(async () => (await sessionsOfRun(runId)).length === 2, 'the first two sessions');
  const single = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/sandbox`,
    headers: owner.auth,
    payload: { task: 'python/leap-year' },
  });
  expect(single.statusCode).toBe(429);
  expect(single.json().detail).toBe(
    'this account already has 2 coding sessions running, the most it may have at once; one must end first',
  );
  expect(single.headers['retry-after']).toBe('30');

  // The agent submits each session as it comes: the run opens the next as one ends.
  for (let ended = 0; ended < 4; ended++) {
    const open = (await sessionsOfRun(runId)).filter((s) => s.status === 'pending' || s.status === 'running');
    expect(open.length).toBeGreaterThan(0);
    expect(open.length).toBeLessThanOrEqual(2);
    const work = await codingWork(
      t,
      agent,
      open.map((s) => `sandbox-${s.id}`),
    );
    expect((await stepOf(t, work.sandbox)('POST', 'submit')).json().status).toBe('failed');
    await eventually(
      async () => (await sessionsOfRun(runId)).filter((s) => s.status === 'failed').length === ended + 1,
      'the session to end',
    );
  }
  const sessions = await sessionsOfRun(runId);
  expect(sessions.map((s) => s.task_id)).toEqual([
    'javascript/lru-cache',
    'python/leap-year',
    'javascript/lru-cache',
    'python/leap-year',
  ]);
  await eventually(
    async () => (await benchmarkProgressOf(t.orm.em.fork(), agent.id))?.running === false,
    'the run to end',
  );
  expect(await benchmarkProgressOf(t.orm.em.fork(), agent.id)).toEqual({
    tasks: 4,
    ended: 4,
    passed: 0,
    running: false,
  });
  expect((await feedEntryOf(t, agent.id, `sandbox-${sessions[0]!.id}`)).status).toBe('failed');
  // The run is over: another may start. It is worked to its end, for the next test.
  const next = await benchmark({ trials: 1 });
  expect(next.statusCode).toBe(202);
  await eventually(async () => (await sessionsOfRun(next.json().run_id)).length === 2, 'its sessions');
  for (let i = 0; i < 2; i++) await submitNextOf(next.json().run_id);
  await eventually(async () => !(await benchmarkProgressOf(t.orm.em.fork(), agent.id))!.running, 'it to end');
}, 120_000);

it('skips a task retired during the run, and stops when the agent is deactivated, closing the run either way', async () => {
  const { run_id: runId } = (await benchmark({ trials: 2 })).json();
  await eventually(async () => (await sessionsOfRun(runId)).length === 2, 'the first two sessions');
  // The second trial of lru-cache will find it retired.
  await t.orm.em
    .fork()
    .getConnection()
    .execute(`update coding_tasks set active = false where id = 'javascript/lru-cache'`);
  try {
    for (let ended = 0; ended < 3; ended++) {
      await submitNextOf(runId);
      await eventually(
        async () => (await sessionsOfRun(runId)).filter((s) => s.status === 'failed').length === ended + 1,
        'the session to end',
      );
    }
    await eventually(async () => !(await benchmarkProgressOf(t.orm.em.fork(), agent.id))!.running, 'the run to close');
    expect((await sessionsOfRun(runId)).map((s) => s.task_id)).toEqual([
      'javascript/lru-cache',
      'python/leap-year',
      'python/leap-year',
    ]);
    expect(await benchmarkProgressOf(t.orm.em.fork(), agent.id)).toEqual({
      tasks: 4,
      ended: 3,
      passed: 0,
      running: false,
    });
  } finally {
    await t.orm.em
      .fork()
      .getConnection()
      .execute(`update coding_tasks set active = true where id = 'javascript/lru-cache'`);
  }

  const stopped = (await benchmark({ trials: 2 })).json();
  await eventually(async () => (await sessionsOfRun(stopped.run_id)).length === 2, 'the first two sessions');
  const deactivated = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/deactivate`,
    headers: owner.auth,
  });
  expect(deactivated.statusCode).toBe(200);
  // The two sessions it had end (their owner cancels them: a deactivated agent takes no work); nothing else opens.
  for (const s of await sessionsOfRun(stopped.run_id)) {
    const cancelled = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox/sandbox-${s.id}/cancel`,
      headers: owner.auth,
    });
    expect(cancelled.json().status).toBe('cancelled');
  }
  await eventually(async () => !(await benchmarkProgressOf(t.orm.em.fork(), agent.id))!.running, 'the run to close');
  expect(await sessionsOfRun(stopped.run_id)).toHaveLength(2);
}, 120_000);

it('is for the owner only', async () => {
  const stranger = await register(t.app);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/benchmark`,
    headers: stranger.auth,
    payload: {},
  });
  expect(res.statusCode).toBe(404);
});
