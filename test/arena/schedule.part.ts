import { scheduleIds } from '../../worker/schedules';
import { startArena, type Arena } from './support';
import { eventually } from '../support/wait';

let arena: Arena;
// Starting agents and their gyms on a busy two-core machine can take a while.
beforeAll(async () => {
  arena = await startArena(2, { ARENA_DISPATCH_INTERVAL: '1', ARENA_MIN_GAP_SECONDS: '0' });
}, 120_000);
afterAll(async () => {
  const ids = scheduleIds(arena.t.config.taskQueue);
  await Promise.allSettled([ids.dispatch, ids.leaderboard].map((id) => arena.client.schedule.getHandle(id).delete()));
  await arena.close();
});

it('a worker sets up the dispatch schedule, which sends pool prompts on its own', async () => {
  await arena.t.startWorker({ schedules: true });
  const ids = scheduleIds(arena.t.config.taskQueue);
  const described = await arena.client.schedule.getHandle(ids.dispatch).describe();
  expect(described.spec.intervals?.[0]?.every).toBe(1000);
  expect(described.action).toMatchObject({
    type: 'startWorkflow',
    workflowType: 'dispatchArena',
    taskQueue: arena.t.config.taskQueue,
  });
  await arena.client.schedule.getHandle(ids.leaderboard).describe();

  // Both agents get main prompts without anyone running a dispatch step by hand.
  const agents = await eventually(
    async () => {
      const [row] = await arena.sql<{ n: number }>(
        `select count(distinct agent_id)::int as n from sessions where kind = 'main' and status = 'answered'`,
      );
      return row!.n >= 2 && row!.n;
    },
    'both agents to answer a main prompt',
    20_000,
  );
  expect(agents).toBe(2);
  // A second worker start updates the schedules in place instead of failing.
  await arena.t.startWorker({ schedules: true });
});
