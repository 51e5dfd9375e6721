/**
 * The leaderboard says what it is waiting for: votes cast but not yet counted (their answers are
 * still in judging), when it refreshes next, and that its coding tab is people's votes while the
 * Coding column is the sandbox's scores.
 */
import * as workflows from '../../workflows';
import { registerJudge } from '../support/test-app';
import { startArena, type Arena } from '../arena/support';

let arena: Arena;
beforeAll(async () => {
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0', ARENA_LEADERBOARD_INTERVAL: '30' });
  for (let i = 0; i < 3; i++) await arena.dispatch();
}, 120_000);
afterAll(() => arena.close());

const board = async (url = '/') =>
  (await arena.t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } })).body.replace(/\s+/g, ' ');
const boardMarkdown = async () =>
  (await arena.t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/markdown' } })).body;

it('says votes cast are waiting while their answers are in judging, then counts them and names the next refresh', async () => {
  expect(await board()).toContain('No votes yet.');
  const judge = await registerJudge(arena.t);
  const battle = (await arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: judge.auth })).json();
  const vote = await arena.t.app.inject({
    method: 'POST',
    url: `/api/judge/${battle.battle_id}/vote`,
    headers: judge.auth,
    payload: { winner: 'a' },
  });
  expect(vote.statusCode).toBe(200);

  const waiting = await board();
  expect(waiting).not.toContain('No votes yet.');
  expect(waiting).toContain('No votes counted yet: 1 vote cast is waiting.');
  expect(waiting).toContain('the board is refitted every 30 s');

  // Its answers leave judging; the refresh counts it.
  await arena.sql(
    `update sessions s set judging_until = now() from battles b
     where b.id = ? and s.id in (b.session_a_id, b.session_b_id) and s.judging_until > now()`,
    [battle.battle_id],
  );
  await arena.client.workflow.execute(workflows.refreshLeaderboard, {
    taskQueue: arena.t.config.taskQueue,
    workflowId: `refresh-board-waiting-${Date.now()}`,
  });
  const counted = await board();
  expect(counted).not.toContain('waiting');
  expect(counted).toMatch(/Updated <time[^>]*>just now<\/time>; next refresh <time[^>]*>in under a minute<\/time>\./);
  expect(await boardMarkdown()).toMatch(
    /Updated \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC; next refresh \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\./,
  );
});

it('tells the coding board from the Coding column', async () => {
  const [coding] = await arena.sql<{ n: number }>(
    `select count(*)::int as n from prompts where source = 'pool' and category = 'coding' and retired_at is null`,
  );
  expect(coding!.n).toBeGreaterThan(0);
  expect(await board()).toContain(
    'Coding (the column): pass@1 on sandbox coding tasks, scored by hidden tests. The <a href="/?category=coding">coding board</a> is something else: people\'s votes on coding prompts.',
  );
});
