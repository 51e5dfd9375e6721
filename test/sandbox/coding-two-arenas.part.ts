/**
 * Two arenas on one machine (a staging and a production, or a test run beside a developer's arena),
 * each with its own database, on the same range of sandbox uids: a uid's lease is held host-wide, so
 * they never give two live sessions the same uid (whose end would kill the other's processes).
 */
import { openCodingSession, startCodingArena, stepOf, type CodingArena } from './coding-support';
import { until } from '../support/wait';

// Two uids for sessions (then a judge's and the isolation check's), far from every other test file's.
const RANGE = {
  ARENA_SANDBOX_UID_BASE: String(3_000_000 + (process.pid % 997) * 10),
  ARENA_SANDBOX_UID_COUNT: '4',
  ARENA_CODING_SCORING_SLOTS: '1',
};

let staging: CodingArena;
let production: CodingArena;
beforeAll(async () => {
  staging = await startCodingArena(RANGE, 'staging-agent');
  production = await startCodingArena(RANGE, 'production-agent');
}, 120_000);
afterAll(async () => {
  await staging?.close();
  await production?.close();
});

const uidOf = async (arena: CodingArena, work: Awaited<ReturnType<typeof openCodingSession>>) => {
  const res = await stepOf(arena.t, work.sandbox)('POST', 'exec', { command: 'id -u' });
  expect(res.statusCode).toBe(200);
  return Number(res.json().stdout.trim());
};

it('never leases one uid to live sessions of two arenas, and refuses a session when the machine has none left', async () => {
  const first = await openCodingSession(staging.t, staging.owner, staging.agent);
  const second = await openCodingSession(production.t, production.owner, production.agent);
  const uids = [await uidOf(staging, first), await uidOf(production, second)];
  expect(new Set(uids).size).toBe(2);
  for (const uid of uids) {
    expect(uid).toBeGreaterThanOrEqual(Number(RANGE.ARENA_SANDBOX_UID_BASE));
    expect(uid).toBeLessThan(Number(RANGE.ARENA_SANDBOX_UID_BASE) + 2);
  }
  // Staging's own database sees one lease of two; the machine has none left, so its next session is
  // refused rather than sharing production's uid.
  const third = await staging.t.app.inject({
    method: 'POST',
    url: `/api/agents/${staging.agent.id}/sandbox`,
    headers: staging.owner.auth,
    payload: { task: 'python/leap-year' },
  });
  expect(third.statusCode).toBe(202);
  const id = Number(third.json().id.split('-')[1]);
  const ended = async () =>
    (
      await staging.t.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ status: string; error: string }>>(`select status, error from sessions where id = ?`, [id])
    )[0]!;
  await until(async () => (await ended()).status !== 'pending', 'the session to end', 30_000);
  expect(await ended()).toEqual({
    status: 'error',
    error: 'the sandbox has no free user for another session (all 2 are in use); try again later',
  });
});
