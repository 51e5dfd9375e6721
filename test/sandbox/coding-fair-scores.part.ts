/**
 * Scores fair to every account, end to end: what the judge could not compare is named to the owner
 * alone, the feed saying so in the arena's own words; a workspace whose task file became a folder is
 * an attempt scored on what it holds, not a failure of the sandbox's.
 */
import type { Registered, TestApp } from '../support/test-app';
import { feedEntryOf, openCodingSession, startCodingArena, stepOf, type CodingArena } from './coding-support';

let arena: CodingArena;
let t: TestApp;
let owner: Registered;
let agent: { id: number; webhook_secret: string };

beforeAll(async () => {
  arena = await startCodingArena({ ARENA_GYM_RETRY_SECONDS: '3600' }, 'fair');
  ({ t, owner, agent } = arena);
}, 120_000);
afterAll(() => arena?.close());

/** The session's feed entry as its owner reads it (with their key) and as anyone else does. */
async function entries(publicId: string) {
  const owned = await t.app.inject({
    method: 'GET',
    url: `/api/agents/${agent.id}/activity?limit=100`,
    headers: owner.auth,
  });
  const mine = owned.json().sessions.find((s: { id: string }) => s.id === publicId);
  return { mine, everyone: await feedEntryOf(t, agent.id, publicId) };
}

it('names to the owner alone a value the judge could not compare', async () => {
  const w = await openCodingSession(t, owner, agent);
  const step = stepOf(t, w.sandbox);
  const source = [
    'class Days:',
    '    def __init__(self, n):',
    '        self.n = n',
    '    def __eq__(self, other):',
    '        return self.n == other',
    'def is_leap(year):',
    '    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)',
    'def days_in_year(year):',
    '    return Days(366 if is_leap(year) else 365)',
    'def days_in_month(year, month):',
    '    if not 1 <= month <= 12:',
    '        raise ValueError("month must be 1..12")',
    '    if month == 2:',
    '        return 29 if is_leap(year) else 28',
    '    return 30 if month in (4, 6, 9, 11) else 31',
    '',
  ].join('\n');
  expect((await step('PUT', 'files?path=calendar_utils.py', source, { 'content-type': 'text/plain' })).statusCode).toBe(
    204,
  );
  expect((await step('POST', 'submit')).json()).toMatchObject({ status: 'failed', tests_passed: 7, tests_total: 8 });
  const { mine, everyone } = await entries(w.work_id);
  expect(mine.error).toBe('returned a `Days`, which the judge cannot compare as a number');
  expect(everyone.error).toBe('the judge could not compare some values of the code as plain values');
  expect(everyone.response).not.toContain('returned a `Days`');
  expect(everyone.response).toContain('the judge could not compare some values of the code as plain values');
}, 120_000);

it('scores a workspace whose task file became a folder as an attempt, saying what was not carried', async () => {
  const w = await openCodingSession(t, owner, agent);
  const step = stepOf(t, w.sandbox);
  const exec = await step('POST', 'exec', {
    command: 'mv calendar_utils.py /tmp/c.py && mkdir calendar_utils.py && mv /tmp/c.py calendar_utils.py/c.py',
  });
  expect(exec.json()).toMatchObject({ exit_code: 0 });
  expect((await step('POST', 'submit')).json()).toMatchObject({ status: 'failed', tests_passed: 0, tests_total: 8 });
  const { mine } = await entries(w.work_id);
  expect(mine.status).toBe('failed');
  expect(mine.response).toContain(
    "Not carried into the clean room: calendar_utils.py (the task's file, a folder in the workspace).",
  );
}, 120_000);

/** python/leap-year's module, fixed, with `days` deciding what its day counts are returned as. */
function leapYearSource(prelude: string[], days: string): string {
  return [
    ...prelude,
    'def is_leap(year):',
    '    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)',
    'def days_in_year(year):',
    `    return ${days.replace('N', '(366 if is_leap(year) else 365)')}`,
    'def days_in_month(year, month):',
    '    if not 1 <= month <= 12:',
    '        raise ValueError("month must be 1..12")',
    '    if month == 2:',
    `        return ${days.replace('N', '(29 if is_leap(year) else 28)')}`,
    `    return ${days.replace('N', '(30 if month in (4, 6, 9, 11) else 31)')}`,
    '',
  ].join('\n');
}

async function scoreLeapYear(source: string) {
  const w = await openCodingSession(t, owner, agent);
  const step = stepOf(t, w.sandbox);
  const written = await step('PUT', 'files?path=calendar_utils.py', source, { 'content-type': 'text/plain' });
  expect(written.statusCode).toBe(204);
  return (await step('POST', 'submit')).json();
}

it('passes right answers returned as subclasses of int and as IntEnum members, and fails a subclass that lies', async () => {
  const subclass = leapYearSource(['class Days(int):', '    pass'], 'Days(N)');
  expect(await scoreLeapYear(subclass)).toMatchObject({ status: 'passed', tests_passed: 8, tests_total: 8 });
  const members = [28, 29, 30, 31, 365, 366].map((n) => `    D${n} = ${n}`);
  const enumerated = leapYearSource(['import enum', 'class Count(enum.IntEnum):', ...members], 'Count(N)');
  expect(await scoreLeapYear(enumerated)).toMatchObject({ status: 'passed', tests_passed: 8, tests_total: 8 });
  // Equal to anything by its own __eq__, but holding 365 in a leap year: the plain value is compared.
  const lying = leapYearSource(
    ['class Days(int):', '    def __eq__(self, other):', '        return True', '    __hash__ = int.__hash__'],
    'Days(365)',
  );
  const lied = await scoreLeapYear(lying);
  expect(lied.status).toBe('failed');
  expect(lied.tests_passed).toBeLessThan(8);
}, 240_000);
