/**
 * How a coding session ends, through the API on the real sandbox: nothing of the session runs past
 * its end (a step in flight is killed, a step after the deadline is refused), the score comes from a
 * clean room, a cancel is scored too, no two live sessions share a uid, and a workspace holds its
 * disk quota.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Registered, TestApp } from '../support/test-app';
import {
  feedEntryOf,
  openCodingSession,
  openShortCodingSession,
  startCodingArena,
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
  // Four uids: two for sessions, one for the judge of the one scoring slot, one for the isolation check. A quota of 1 MiB and 64 files.
  arena = await startCodingArena(
    {
      ARENA_GYM_RETRY_SECONDS: '1',
      ARENA_SANDBOX_UID_COUNT: '4',
      ARENA_CODING_SCORING_SLOTS: '1',
      ARENA_SANDBOX_DISK_MB: '1',
      ARENA_SANDBOX_DISK_FILES: '64',
    },
    'clean',
  );
  ({ t, owner, agent } = arena);
}, 120_000);
afterAll(() => arena?.close());

const start = (task?: string, deadlineSeconds?: number) => openCodingSession(t, owner, agent, task, deadlineSeconds);

const sessionIdOf = (work: CodingWork) => Number(work.work_id.split('-')[1]);
const workspaceOwner = (work: CodingWork) => fs.statSync(path.join(arena.sandboxDir, String(sessionIdOf(work)))).uid;
const ended = (work: CodingWork) =>
  eventually(
    async () => !['pending', 'running'].includes((await feedEntryOf(t, agent.id, work.work_id)).status),
    'the end',
    60_000,
  );

describe('the end of a session', () => {
  it('kills a step in flight at submit, instead of scoring after it', async () => {
    const work = await start();
    const step = stepOf(t, work.sandbox);
    const sleeping = step('POST', 'exec', { command: 'sleep 100; echo survived', timeout_seconds: 120 });
    // The command is running once its step has a number in the transcript's table.
    await eventually(
      async () =>
        (
          await t.orm.em
            .fork()
            .getConnection()
            .execute('select count(*)::int as n from coding_steps where session_id = ?', [sessionIdOf(work)])
        )[0]?.n === 1,
      'the step to start',
    );
    const startedAt = Date.now();
    const submitted = await step('POST', 'submit');
    expect(submitted.statusCode).toBe(200);
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    const killed = (await sleeping).json();
    expect(killed.stdout).not.toContain('survived');
    expect(killed.exit_code).toBeGreaterThan(128);
  }, 60_000);

  it('refuses a step sent after the deadline, kills one running across it, and keeps the score', async () => {
    const work = await openShortCodingSession(arena, 5);
    const step = stepOf(t, work.sandbox);
    // Runs across the deadline, which kills it: its answer comes at the deadline, not in 100 s.
    const cut = (await step('POST', 'exec', { command: 'sleep 100; echo survived', timeout_seconds: 120 })).json();
    expect(cut.stdout).not.toContain('survived');
    // The kill and this clock may differ by milliseconds: the next step goes out surely past the deadline.
    const deadline = new Date(work.sandbox.expires_at).getTime();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now() + 50)));
    // Sent after the deadline: what it would do (rewrite the hidden tests as they arrive) never runs.
    const late = await step('POST', 'exec', {
      command: 'while :; do sed -i "s/self.assert/print(/" .hidden-tests/*.py 2>/dev/null; done',
      timeout_seconds: 120,
    });
    // Whether the end was recorded yet or the hidden tests still ran, the step is refused.
    expect(late.statusCode).toBe(409);
    expect(late.json().detail).toMatch(
      /^the session has ended \((timeout|its deadline passed; its hidden tests run now)\)$/,
    );
    expect(cut.duration_ms).toBeLessThan(8_000);
    await ended(work);
    const entry = await feedEntryOf(t, agent.id, work.work_id);
    expect(entry.status).toBe('timeout');
    expect(entry.response).toMatch(/\*\*timeout\*\*: 4 of 8 hidden tests passed, in 1 steps\./);
  }, 60_000);

  it('scores a cancelled session in the clean room too, and says so in the feed', async () => {
    const work = await start();
    const step = stepOf(t, work.sandbox);
    expect((await step('GET', 'files?path=calendar_utils.py')).statusCode).toBe(200);
    const cancelled = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox/${work.work_id}/cancel`,
      headers: owner.auth,
    });
    expect([cancelled.statusCode, cancelled.json().status]).toEqual([200, 'cancelled']);
    const entry = await feedEntryOf(t, agent.id, work.work_id);
    expect(entry.response).toMatch(/\*\*cancelled\*\*: 4 of 8 hidden tests passed, in 1 steps\./);
  });
});

describe('uids and disk', () => {
  it('gives no two live sessions one uid, and a session waits for none: it says there is none free', async () => {
    const first = await start();
    const second = await start();
    expect(workspaceOwner(first)).not.toBe(workspaceOwner(second));
    const third = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox`,
      headers: owner.auth,
      payload: { task: 'python/leap-year' },
    });
    const thirdId = third.json().id;
    await eventually(async () => (await feedEntryOf(t, agent.id, thirdId)).status === 'error', 'the third to end');
    expect((await feedEntryOf(t, agent.id, thirdId)).error).toBe(
      'the sandbox has no free user for another session (all 2 are in use); try again later',
    );
    // The first ends: its uid goes back to the range, for the next session.
    const firstUid = workspaceOwner(first);
    expect((await stepOf(t, first.sandbox)('POST', 'submit')).statusCode).toBe(200);
    const fourth = await start();
    expect(workspaceOwner(fourth)).toBe(firstUid);
    for (const work of [second, fourth]) await stepOf(t, work.sandbox)('POST', 'submit');
  }, 60_000);

  it('takes back a uid that a lost worker left leased, once its session ended ten minutes ago', async () => {
    const [lost, live] = [await start(), await start()];
    const lostUid = workspaceOwner(lost);
    // As a lost worker leaves it: the session's end recorded (long ago), its lease never given back.
    await t.orm.em
      .fork()
      .getConnection()
      .execute(`update sessions set status = 'error', completed_at = now() - interval '11 minutes' where id = ?`, [
        sessionIdOf(lost),
      ]);
    const next = await start();
    expect(workspaceOwner(next)).toBe(lostUid);
    for (const work of [live, next]) await stepOf(t, work.sandbox)('POST', 'submit');
  }, 60_000);

  it('holds a workspace to its disk quota, in bytes and in files', async () => {
    const work = await start();
    const step = stepOf(t, work.sandbox);
    const big = (await step('POST', 'exec', { command: 'head -c 5000000 /dev/zero > big' })).json();
    expect(big.stderr).toContain('No space left on device');
    const many = (
      await step('POST', 'exec', {
        command: 'rm -f big; for i in $(seq 1 200); do touch f$i 2>/dev/null || { echo stopped at $i; break; }; done',
      })
    ).json();
    expect(many.stdout).toMatch(/^stopped at \d+\n$/);
    expect(Number(/\d+/.exec(many.stdout)?.[0])).toBeLessThanOrEqual(64);
    expect((await step('POST', 'submit')).json()).toMatchObject({ status: 'failed', tests_passed: 4 });
  }, 60_000);
});
