/** The migration that gives ended coding sessions recorded before their time in the feed (they read 0 ms). */
import { CODING_SESSION_TIMES } from '../../infra/db/migrations/Migration20261127170000';
import { register, startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t.close());

const sql = <T = Record<string, unknown>>(q: string, p: unknown[] = []) => t.orm.em.getConnection().execute<T[]>(q, p);

it("sets an ended coding session's time from its start to its end, and leaves others alone", async () => {
  const owner = await register(t.app);
  const [agent] = await sql<{ id: number }>(
    `insert into agents (owner_id, name, mode, owner_handle, secret_hash, secret_sealed, created_at)
     values (?, 'old', 'pull', 'o', 'x', 'x', now()) returning id`,
    [owner.userId],
  );
  const [prompt] = await sql<{ id: number }>(
    `insert into prompts (source, category, text, created_at) values ('sandbox', 'swe', 'task', now()) returning id`,
  );
  const session = async (status: string, ended: boolean, latency: number | null, coding: boolean) => {
    const [row] = await sql<{ id: number }>(
      `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, latency_ms, created_at, completed_at)
       values (?, 'sandbox', ?, 'pull', 'swe', 60, ?, ?, now() - interval '42 seconds', case when ? then now() end) returning id`,
      [agent!.id, prompt!.id, status, latency, ended],
    );
    if (coding)
      await sql(
        `insert into coding_sessions (session_id, task_id, token_nonce, max_steps, expires_at)
         values (?, 'python/leap-year', 'n', 10, now())`,
        [row!.id],
      );
    return row!.id;
  };
  const ended = await session('passed', true, null, true);
  const running = await session('running', false, null, true);
  const prompted = await session('answered', true, 7, false);
  await sql(CODING_SESSION_TIMES);
  const latency = async (id: number) =>
    (await sql<{ latency_ms: number | null }>(`select latency_ms from sessions where id = ?`, [id]))[0]!.latency_ms;
  expect(await latency(ended)).toBeGreaterThanOrEqual(42_000);
  expect(await latency(ended)).toBeLessThan(60_000);
  expect(await latency(running)).toBeNull();
  expect(await latency(prompted)).toBe(7);
});
