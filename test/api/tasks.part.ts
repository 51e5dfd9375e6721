/** GET /api/tasks: the active coding tasks, for anyone, filterable by suite. */
import { startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const list = (query = '') => t.app.inject({ method: 'GET', url: `/api/tasks${query}` });

describe('GET /api/tasks', () => {
  it('lists every active task with its suite, language, title and the first line of its statement, with no key', async () => {
    const res = await list();
    expect(res.statusCode).toBe(200);
    const tasks = res.json() as Array<Record<string, string>>;
    const leap = tasks.find((task) => task.id === 'python/leap-year');
    expect(leap).toEqual({
      id: 'python/leap-year',
      suite: 'arena',
      language: 'python',
      title: expect.any(String),
      summary: expect.stringMatching(/^`is_leap` in `calendar_utils.py` treats every year divisible by 4/),
    });
    const [active] = await t.orm.em
      .getConnection()
      .execute<Array<{ n: number }>>(`select count(*)::int as n from coding_tasks where active`);
    expect(tasks).toHaveLength(active!.n);
    expect(tasks.some((task) => task.language === 'javascript')).toBe(true);
    for (const task of tasks) expect(task.summary).not.toMatch(/^#|^\s*$/);
  });

  it('filters by suite, and leaves out a retired task', async () => {
    const arena = (await list('?suite=arena')).json() as Array<{ id: string; suite: string }>;
    expect(arena.length).toBeGreaterThan(0);
    expect(arena.every((task) => task.suite === 'arena')).toBe(true);
    const humaneval = (await list('?suite=humaneval')).json() as Array<{ suite: string }>;
    expect(humaneval.every((task) => task.suite === 'humaneval')).toBe(true);

    const sql = t.orm.em.getConnection();
    await sql.execute(`update coding_tasks set active = false where id = 'python/leap-year'`);
    try {
      const after = (await list('?suite=arena')).json() as Array<{ id: string }>;
      expect(after.map((task) => task.id)).not.toContain('python/leap-year');
      expect(after).toHaveLength(arena.length - 1);
    } finally {
      await sql.execute(`update coding_tasks set active = true where id = 'python/leap-year'`);
    }
  });

  it.each([
    ['?suite=nope', 'suite must be arena or humaneval'],
    ['?suite=', 'suite must be arena or humaneval'],
    ['?language=python', 'the query string has unknown field language'],
  ])('answers %s with a 400 sentence', async (query, detail) => {
    const res = await list(query);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(detail);
  });
});
