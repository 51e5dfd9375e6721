/**
 * HumanEval through the API, in the real sandbox: an imported problem's session passes with the
 * reference solution written in and fails as it starts; the profile, the leaderboard and the website
 * give the humaneval suite's pass@1 with its interval and pass@k; a benchmark run takes a suite.
 */
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../../cli/main';
import { passAtK } from '../../domain/sandbox/pass-rate';
import type { Registered, TestApp } from '../support/test-app';
import { openCodingSession, startCodingArena, stepOf, type CodingArena, type CodingWork } from './coding-support';

const SAMPLE = path.join(__dirname, '..', 'fixtures', 'humaneval-sample.jsonl');
const [first, second] = fs
  .readFileSync(SAMPLE, 'utf8')
  .split('\n')
  .slice(0, 2)
  .map((line) => JSON.parse(line) as { prompt: string; canonical_solution: string; entry_point: string });

let arena: CodingArena;
let t: TestApp;
let owner: Registered;
let agent: { id: number; webhook_secret: string };

beforeAll(async () => {
  arena = await startCodingArena({ ARENA_GYM_RETRY_SECONDS: '3600', ARENA_SANDBOX_RATE_LIMIT: '1000' }, 'solver');
  ({ t, owner, agent } = arena);
}, 120_000);
afterAll(() => arena?.close());

const submit = async (w: CodingWork) => (await stepOf(t, w.sandbox)('POST', 'submit')).json();
const write = async (w: CodingWork, content: string) =>
  expect((await stepOf(t, w.sandbox)('PUT', 'files?path=solution.py', { content })).statusCode).toBe(204);
const benchmark = (payload: object) =>
  t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/benchmark`, headers: owner.auth, payload });

it('refuses a HumanEval benchmark before the suite is imported, and a suite that does not exist', async () => {
  const none = await benchmark({ suite: 'humaneval' });
  expect(none.statusCode).toBe(409);
  expect(none.json().detail).toBe(
    'no task of the humaneval suite is active: an operator imports it with `arena tasks import humaneval`',
  );
  const unknown = await benchmark({ suite: 'mbpp' });
  expect(unknown.statusCode).toBe(400);
  expect(unknown.json().detail).toBe('suite must be arena or humaneval');
});

it('scores a HumanEval session: the reference passes, the starting file fails, a faked equality fails', async () => {
  const good = path.join(arena.sandboxDir, 'two.jsonl');
  fs.writeFileSync(good, `${JSON.stringify(first)}\n${JSON.stringify(second)}\n`);
  const printed: string[] = [];
  const env = { DATABASE_URL: t.config.databaseUrl, ARENA_SANDBOX_DIR: arena.sandboxDir };
  expect(await main(['tasks', 'import', 'humaneval', '--file', good], (l) => printed.push(l), env)).toBe(0);
  expect(printed.at(-1)).toMatch(/^2 problems: 2 imported/);

  const solved = await openCodingSession(t, owner, agent, 'python/humaneval-0');
  expect(solved.prompt).toContain('Implement `has_close_elements` in `solution.py`');
  await write(solved, first!.prompt + first!.canonical_solution);
  expect(await submit(solved)).toMatchObject({ status: 'passed', tests_passed: 1, tests_total: 1 });

  expect(await submit(await openCodingSession(t, owner, agent, 'python/humaneval-0'))).toMatchObject({
    status: 'failed',
    tests_passed: 0,
  });

  // The data set's check compares with a bare ==: an answer that equals anything would pass it there.
  const faked = await openCodingSession(t, owner, agent, 'python/humaneval-0');
  await write(
    faked,
    `${first!.prompt}    class Yes:\n        def __eq__(self, other):\n            return True\n    return Yes()\n`,
  );
  expect(await submit(faked)).toMatchObject({ status: 'failed', tests_passed: 0 });
}, 120_000);

it('gives the suite pass@1 with its interval and pass@k, on the profile, the leaderboard and the pages', async () => {
  const profile = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/coding` })).json();
  const humaneval = profile.suites.find((s: { suite: string }) => s.suite === 'humaneval');
  expect(humaneval).toEqual({
    suite: 'humaneval',
    tasks: 2,
    tasks_attempted: 1,
    attempted: 3,
    passed: 1,
    pass_at_1: 0.333,
    ci_low: expect.any(Number),
    ci_high: expect.any(Number),
    pass_at_k: [
      { k: 2, value: Math.round(passAtK(3, 1, 2) * 1000) / 1000 },
      { k: 3, value: 1 },
    ],
  });
  expect(profile.suites.map((s: { suite: string }) => s.suite)).toEqual(['arena', 'humaneval']);

  // A leaderboard row for the agent, as a refresh writes one.
  await t.orm.em.getConnection().execute(
    `insert into leaderboard_entries (board, style_control, agent_id, rank, bt_rating, ci_low, ci_high, votes, wins, losses, ties, computed_at)
       values ('all', false, ?, 1, 1500, 1400, 1600, 12, 6, 6, 0, now())`,
    [agent.id],
  );
  const [row] = (await t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json();
  expect(row.coding_suites).toEqual(profile.suites);

  const board = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/markdown' } });
  expect(board.body).toContain(
    `HumanEval 33% (${Math.round(humaneval.ci_low * 100)}–${Math.round(humaneval.ci_high * 100)}%)`,
  );
  const page = await t.app.inject({ method: 'GET', url: `/agents/${agent.id}`, headers: { accept: 'text/markdown' } });
  expect(page.body).toMatch(/\| HumanEval \| 1 of 2 \| 3 \| 33% \(\d+–\d+%\) \| pass@2 67% · pass@3 100% \|/);
});

it("fails a solution that answers from the check's own text (the check runs in the judge)", async () => {
  // The check answered from itself: its text read from the test module in memory (no file opened),
  // its assertions run against a recorder to learn each expected value, the answers given from that.
  // In the one process the harness shared with the code under test, this passed 154 of 164 problems;
  // the check now runs in the judge, and the candidate's process holds nothing of it.
  const fromTheCheck = await openCodingSession(t, owner, agent, 'python/humaneval-0');
  await write(
    fromTheCheck,
    [
      first!.prompt.split('def has_close_elements')[0],
      'import sys as _sys',
      'def _expected():',
      '    seen = {}',
      '    class Recorder:',
      '        def __init__(self, key):',
      '            self.key = key',
      '        def __eq__(self, other):',
      '            seen[self.key] = other',
      '            return True',
      '    namespace = {}',
      '    exec(_sys.modules["test_humaneval"].TEST, namespace)',
      '    try:',
      '        namespace["check"](lambda *args: Recorder(repr(args)))',
      '    except Exception:',
      '        pass',
      '    return seen',
      'def has_close_elements(numbers, threshold):',
      '    return _expected().get(repr((numbers, threshold)), False)',
      '',
    ].join('\n'),
  );
  expect(await submit(fromTheCheck)).toMatchObject({ status: 'failed', tests_passed: 0 });
});

// Last: the run's sessions go to the same agent, and would come before any session a later test opens.
it('runs a benchmark of the humaneval suite: its every active task', async () => {
  const res = await benchmark({ suite: 'humaneval', trials: 1 });
  expect(res.statusCode).toBe(202);
  expect(res.json()).toMatchObject({ suite: 'humaneval', tasks: 2, trials: 1, sessions: 2 });
});
