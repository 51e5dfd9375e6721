/**
 * Fair shares of the sandbox, end to end: what one account's scorings hold (judges waiting out code
 * that never answers) cannot change another account's score, and many submissions scored at once each
 * score what they score alone. Each judge runs as a uid leased for its scoring; a uid's process limit
 * (ARENA_SANDBOX_PROCESSES, 64) was shared by every judge before, and a JavaScript judge holds 13.
 */
import fs from 'node:fs/promises';
import { loadTaskCatalogue } from '../../infra/sandbox/task-catalogue';
import { register, type Registered, type TestApp } from '../support/test-app';
import { until } from '../support/wait';
import { openCodingSession, startCodingArena, stepOf, type CodingArena, type CodingWork } from './coding-support';

const TASK = 'javascript/cart-total';

let arena: CodingArena;
let t: TestApp;
let solution: { path: string; content: string }[];
type Account = { owner: Registered; agent: { id: number; webhook_secret: string } };
let holder: Account;
let neighbour: Account;

beforeAll(async () => {
  arena = await startCodingArena({ ARENA_GYM_RETRY_SECONDS: '3600', ARENA_SANDBOX_RATE_LIMIT: '1000' }, 'holder');
  t = arena.t;
  holder = { owner: arena.owner, agent: arena.agent };
  const owner = await register(t.app);
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name: 'neighbour', mode: 'pull' },
  });
  neighbour = { owner, agent: created.json() };
  solution = await solutionOf(TASK);
}, 120_000);
afterAll(() => arena?.close());

/** `count` sessions of the account's agent, opened one after another (its runner takes one work item at a time). */
async function open({ owner, agent }: Account, count: number, task: string = TASK): Promise<CodingWork[]> {
  const opened: CodingWork[] = [];
  for (let i = 0; i < count; i++) opened.push(await openCodingSession(t, owner, agent, task));
  return opened;
}

/** The task's reference solution, as files to write. */
async function solutionOf(task: string): Promise<{ path: string; content: string }[]> {
  const files = await loadTaskCatalogue()
    .find((candidate) => candidate.id === task)!
    .readSolution();
  return files.map((file) => ({ path: file.path, content: file.content.toString('utf8') }));
}

async function write(w: CodingWork, files: { path: string; content: string }[]): Promise<void> {
  for (const file of files) {
    const written = await stepOf(t, w.sandbox)('PUT', `files?path=${file.path}`, { content: file.content });
    expect(written.statusCode).toBe(204);
  }
}

const submit = async (w: CodingWork) =>
  (await stepOf(t, w.sandbox)('POST', 'submit')).json() as { status: string; tests_passed: number };

/** Judges running on this machine now (any arena's): their command lines name the harness's judge. */
async function judgesRunning(): Promise<number> {
  const pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const lines = await Promise.all(pids.map((pid) => fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')));
  return lines.filter((line) => /\/opt\/arena-harness\/(node\/judge\.mjs|python\/judge\.py)/.test(line)).length;
}

/** Code that keeps its judge waiting until the call limit: a promise that never settles, a call that never returns. */
const HOLDING = {
  'javascript/cart-total': {
    path: 'cart.mjs',
    content: 'export function cartTotal() {\n  return new Promise(() => {});\n}\n',
  },
  'python/leap-year': {
    path: 'calendar_utils.py',
    content:
      'def is_leap(year):\n    while True:\n        pass\n\ndef days_in_year(year):\n    return is_leap(year)\n\ndef days_in_month(year, month):\n    return is_leap(year)\n',
  },
} as const;

it.each(Object.keys(HOLDING) as (keyof typeof HOLDING)[])(
  "scores a neighbour's fix of %s as it scores alone while another account's four judges wait out code that never answers",
  async (task) => {
    const held = await open(holder, 4, task);
    for (const w of held) await write(w, [HOLDING[task]]);
    const holding = held.map(submit);
    // The holder's judges are waiting on their candidates when the neighbour's session is scored.
    await until(async () => (await judgesRunning()) >= 2, "two of the holder's judges running", 60_000);
    const [fix] = await open(neighbour, 1, task);
    await write(fix!, await solutionOf(task));
    expect(await submit(fix!)).toMatchObject({ status: 'passed', tests_passed: 8 });
    // The holder's own code failed its own tests.
    for (const result of await Promise.all(holding)) expect(result).toMatchObject({ status: 'failed' });
  },
  300_000,
);

it('scores eight submissions at once as each scores alone', async () => {
  const sessions = [...(await open(holder, 4)), ...(await open(neighbour, 4))];
  for (const w of sessions) await write(w, solution);
  const results = await Promise.all(sessions.map(submit));
  expect(results.map((r) => `${r.status} ${r.tests_passed}`)).toEqual(Array(8).fill('passed 8'));
}, 300_000);
