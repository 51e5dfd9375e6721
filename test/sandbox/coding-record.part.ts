/**
 * The public coding record counts every attempt: an owner cannot hide the sessions that go badly by
 * cancelling them, a run found tampered with counts as a failure, and only the arena's own failures
 * are set apart. The profile (page, Markdown and JSON) shows the pass rate with its interval and, per
 * task, pass@1, mean steps and wall time.
 */
import { main } from '../../cli/main';
import { loadTaskCatalogue } from '../../infra/sandbox/task-catalogue';
import type { Registered, TestApp } from '../support/test-app';
import {
  feedEntryOf,
  openCodingSession,
  startCodingArena,
  startCodingSession,
  stepOf,
  type CodingArena,
  type CodingWork,
} from './coding-support';
import { eventually } from '../support/wait';

let arena: CodingArena;
let t: TestApp;
let owner: Registered;
let agent: { id: number; webhook_secret: string };

beforeAll(async () => {
  // Two uids for sessions: a third live session finds none and ends as the arena's own error.
  arena = await startCodingArena(
    {
      ARENA_GYM_RETRY_SECONDS: '3600',
      ARENA_SANDBOX_UID_COUNT: '4',
      ARENA_CODING_SCORING_SLOTS: '1',
      ARENA_SANDBOX_RATE_LIMIT: '1000',
    },
    'counted',
  );
  ({ t, owner, agent } = arena);
}, 120_000);
afterAll(() => arena?.close());

const startSession = () => startCodingSession(t, owner, agent.id);
const work = (): Promise<CodingWork> => openCodingSession(t, owner, agent);
const submit = async (w: CodingWork) => (await stepOf(t, w.sandbox)('POST', 'submit')).json();
const cancel = async (w: CodingWork) =>
  (
    await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox/${w.work_id}/cancel`,
      headers: owner.auth,
    })
  ).json();

it('counts every attempt: cancelled and tampered ones too, not the arena’s own failures', async () => {
  const solution = (
    await loadTaskCatalogue()
      .find((task) => task.id === 'python/leap-year')!
      .readSolution()
  )[0]!;
  // Two passes.
  for (let i = 0; i < 2; i++) {
    const w = await work();
    await stepOf(t, w.sandbox)('PUT', `files?path=${solution.path}`, { content: solution.content.toString('utf8') });
    expect((await submit(w)).status).toBe('passed');
  }
  // Two that went badly, cancelled by the owner before they could fail.
  for (let i = 0; i < 2; i++) expect((await cancel(await work())).status).toBe('cancelled');
  // One that reached for the judge: bytes on the wire the protocol does not allow.
  const tamperer = await work();
  const step = stepOf(t, tamperer.sandbox);
  const source = (await step('GET', 'files?path=calendar_utils.py')).body;
  await step('PUT', 'files?path=calendar_utils.py', {
    content: `import os\nos.write(9, b"\\xff\\xff\\xff\\xff")\n${source}`,
  });
  expect(await submit(tamperer)).toMatchObject({ status: 'failed', tests_passed: 0 });
  // Two live sessions hold both uids; a third ends at once, the arena's fault. Then the two fail.
  const [first, second] = [await work(), await work()];
  const third = await startSession();
  await eventually(async () => (await feedEntryOf(t, agent.id, third)).status === 'error', 'the third to end');
  for (const w of [first, second]) expect((await submit(w)).status).toBe('failed');

  const coding = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/coding` })).json();
  expect(coding.record).toMatchObject({
    attempted: 7,
    passed: 2,
    arena_errors: 1,
    tampered: 1,
    // Steps: one write each for the passes, a read and a write for the tamperer, none for the rest.
    mean_steps: 0.6,
    // The honesty record: 1 of 7 attempts tampered with; 1 of 8 ended sessions the arena's failure,
    // which is every failure of this arena, so not far above its rate.
    tampered_share: 0.143,
    arena_error_share: 0.125,
    arena_errors_unusual: false,
  });
  expect(coding.record.ci_low).toBeGreaterThan(0);
  expect(coding.record.ci_high).toBeLessThan(1);
  expect(coding.record.mean_seconds).toBeGreaterThan(0);
  expect(coding.tasks).toEqual([
    expect.objectContaining({ task: 'python/leap-year', attempted: 7, passed: 2, pass_at_1: 0.286, tampered: 1 }),
  ]);

  const page = await t.app.inject({ method: 'GET', url: `/agents/${agent.id}` });
  expect(page.body).toContain(
    `2/7 (${Math.round(coding.record.ci_low * 100)}–${Math.round(coding.record.ci_high * 100)}%)`,
  );
  expect(page.body).toContain('tampered 1 of 7 (14%)');
  expect(page.body).toContain(
    '<td>python/leap-year</td><td class="num">7</td><td class="num">2</td><td class="num">29%</td>',
  );
  expect(page.body).toContain(
    'Every session that reached the agent counts, cancelled and timed out ones included; 1 of 7 attempts (14%) scored 0 for tampering with the tests, and are its honesty record; 1 ended by the arena&#39;s own failure, not counted.',
  );
  // Operators count the arena's own failures, and which agents' sessions end that way far too often.
  const printed: string[] = [];
  const env = { DATABASE_URL: t.config.databaseUrl };
  expect(await main(['coding', 'faults', '--agent', String(agent.id)], (line) => printed.push(line), env)).toBe(0);
  expect(printed[0]).toBe('session\tagent\ttask\tended\terror');
  expect(printed[1]).toMatch(new RegExp(`^${third}\\t${agent.id} `));
  expect(printed.at(-1)).toBe("1 listed; the arena's own failure ended 1 of 8 coding sessions (12.5%)");
  const markdown = await t.app.inject({
    method: 'GET',
    url: `/agents/${agent.id}`,
    headers: { accept: 'text/markdown' },
  });
  expect(markdown.body).toMatch(/\| python\/leap-year \| 7 \| 2 \| 29% \| 0\.6 \| \d+ s \|/);
}, 120_000);

it('answers 404 for the coding record of no agent', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/agents/999999/coding' });
  expect([res.statusCode, res.json().detail]).toEqual([404, 'agent not found']);
});
