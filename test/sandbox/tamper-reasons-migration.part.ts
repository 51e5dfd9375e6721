/**
 * The migration that made public tamper reasons the arena's own: a harness's words move to the
 * operators' detail, and the feed (the session's error and the transcript's note) shows the arena's
 * sentence in their place; the arena's own reasons stay as they were.
 */
import { MOVE_TAMPER_REASONS } from '../../infra/db/migrations/Migration20261127150000';
import { register, startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t.close());

const sql = <T = Record<string, unknown>>(q: string, p: unknown[] = []) => t.orm.em.getConnection().execute<T[]>(q, p);

it("moves a harness's reason to the detail and shows the arena's sentence in the feed", async () => {
  const owner = await register(t.app);
  const [agent] = await sql<{ id: number }>(
    `insert into agents (owner_id, name, mode, owner_handle, secret_hash, secret_sealed, created_at)
     values (?, 'old', 'pull', 'o', 'x', 'x', now()) returning id`,
    [owner.userId],
  );
  const [prompt] = await sql<{ id: number }>(
    `insert into prompts (source, category, text, created_at) values ('sandbox', 'swe', 'task', now()) returning id`,
  );
  const leak = 'builtins.leak import unittest  from calendar_utils import days_in_month was added';
  const session = async (reason: string) => {
    const [row] = await sql<{ id: number }>(
      `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, error, response, created_at)
       values (?, 'sandbox', ?, 'pull', 'swe', 60, 'failed', ?, ?, now()) returning id`,
      [
        agent!.id,
        prompt!.id,
        `tampered with: ${reason}`,
        `The summary.\n\n**Tampered with**: ${reason}. The run scores 0.\n\n(transcript)`,
      ],
    );
    await sql(
      `insert into coding_sessions (session_id, task_id, token_nonce, max_steps, tampered, expires_at)
       values (?, 'python/leap-year', 'n', 10, ?, now())`,
      [row!.id, reason],
    );
    return row!.id;
  };
  const harnessWords = await session(leak);
  const arenaWords = await session('a test was reported twice');
  for (const statement of MOVE_TAMPER_REASONS) await sql(statement);

  const read = async (id: number) =>
    (
      await sql<{ tampered: string; tamper_detail: string | null; error: string; response: string }>(
        `select c.tampered, c.tamper_detail, s.error, s.response from coding_sessions c join sessions s on s.id = c.session_id
         where c.session_id = ?`,
        [id],
      )
    )[0]!;
  const sentence = 'the code under test changed the test machinery while the hidden tests ran';
  expect(await read(harnessWords)).toEqual({
    tampered: sentence,
    tamper_detail: leak,
    error: `tampered with: ${sentence}`,
    response: `The summary.\n\n**Tampered with**: ${sentence}. The run scores 0.\n\n(transcript)`,
  });
  expect(await read(arenaWords)).toEqual({
    tampered: 'a test was reported twice',
    tamper_detail: null,
    error: 'tampered with: a test was reported twice',
    response: 'The summary.\n\n**Tampered with**: a test was reported twice. The run scores 0.\n\n(transcript)',
  });
});
