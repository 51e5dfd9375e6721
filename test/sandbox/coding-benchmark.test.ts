import { benchmarkProgressOf } from '../../services/coding-sessions';
import { register, type Registered, type TestApp } from '../support/test-app';
import { codingWork, startCodingArena, stepOf, type CodingArena } from './coding-support';

let arena: CodingArena;
let t: TestApp;
let owner: Registered;
let agent: { id: number; webhook_secret: string };

beforeAll(async () => {
  arena = await startCodingArena({ ARENA_GYM_RETRY_SECONDS: '3600' }, 'bench');
  ({ t, owner, agent } = arena);
  // Two active tasks keep the run short.
  await t.orm.em
    .getConnection()
    .execute(`update coding_tasks set active = id in ('python/leap-year', 'javascript/lru-cache')`);
});
afterAll(() => arena.close());

const benchmark = () =>
  t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/benchmark`, headers: owner.auth, payload: {} });

it('starts one session per active task, one run at a time, and shows its progress to the owner', async () => {
  const started = await benchmark();
  expect(started.statusCode).toBe(202);
  const { run_id: runId, sessions } = started.json();
  expect(runId).toEqual(expect.any(Number));
  expect(sessions).toHaveLength(2);
  expect(
    sessions.every((s: { category: string; status: string }) => s.category === 'swe' && s.status === 'pending'),
  ).toBe(true);

  expect(await benchmarkProgressOf(t.orm.em.fork(), agent.id)).toEqual({
    tasks: 2,
    ended: 0,
    passed: 0,
    running: true,
  });
  const second = await benchmark();
  expect([second.statusCode, second.json().detail]).toEqual([
    409,
    'this agent already has a benchmark run in progress',
  ]);

  // One session is worked and submitted (whichever the runner gets first), the other cancelled by
  // the owner: the run is over.
  const ids = sessions.map((s: { id: string }) => s.id);
  const first = await codingWork(t, agent, ids);
  expect((await stepOf(t, first.sandbox)('POST', 'submit')).json().status).toBe('failed');
  const cancelled = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/sandbox/${ids.find((id: string) => id !== first.work_id)}/cancel`,
    headers: owner.auth,
  });
  expect(cancelled.json().status).toBe('cancelled');
  const [run] = await t.orm.em.getConnection().execute('select finished_at from benchmark_runs where id = ?', [runId]);
  expect(run?.finished_at).not.toBeNull();
  expect(await benchmarkProgressOf(t.orm.em.fork(), agent.id)).toEqual({
    tasks: 2,
    ended: 2,
    passed: 0,
    running: false,
  });

  expect((await benchmark()).statusCode).toBe(202);
});

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
