/** The owner of the sandbox's uid leases (`sandbox_uid_leases`): no two live coding sessions share a uid. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { run } from './sql';

/** Leases past this long after their session ended are taken back when a uid is wanted (a worker lost mid-session left them). */
const STALE_LEASE = '10 minutes';
/** Tries at finding a free uid (a try loses only to another lease made at the same moment, or to a full range). */
const LEASE_TRIES = 20;

/**
 * The uid of the sessions' part of the sandbox's range (`uidBase .. uidBase + sessions - 1`) that
 * `sessionId` holds while it lives: the one it leased already (a retried preparation), else the first
 * free one from `sessionId`'s place in the range on, other than `excluded` (held by another arena on
 * the machine); undefined when every one is held. The judges' block and the isolation check's uid
 * follow that part, and are never leased to a session.
 */
export async function leaseSandboxUid(
  em: EntityManager,
  sessionId: number,
  range: { uidBase: number; sessions: number },
  excluded: readonly number[] = [],
): Promise<number | undefined> {
  const leasable = range.sessions;
  await run(
    em,
    `delete from sandbox_uid_leases l using sessions s
     where s.id = l.session_id and s.status not in ('pending', 'running') and s.completed_at < now() - interval '${STALE_LEASE}'`,
  );
  for (let i = 0; i < LEASE_TRIES; i++) {
    const [held] = await run<{ uid: number }>(em, `select uid from sandbox_uid_leases where session_id = ?`, [
      sessionId,
    ]);
    if (held) return held.uid;
    const rows = await run<{ uid: number }>(
      em,
      `insert into sandbox_uid_leases (uid, session_id, leased_at)
       select c.uid, ?, now() from generate_series(0, ? - 1) n cross join lateral (select ?::int + ((?::int + n) % ?::int) as uid) c
       where not exists (select 1 from sandbox_uid_leases l where l.uid = c.uid) and c.uid <> all(?::int[])
       order by n limit 1
       on conflict do nothing returning uid`,
      [sessionId, leasable, range.uidBase, sessionId, leasable, `{${excluded.join(',')}}`],
    );
    const [leased] = rows;
    if (leased) return leased.uid;
    // Nothing inserted: every uid is held, or another lease took the one found; look again.
  }
  return undefined;
}

/** The session's uid goes back to the range: its workspace is gone and nothing of it runs. Answers the uid it held. */
export async function releaseSandboxUid(em: EntityManager, sessionId: number): Promise<number | undefined> {
  const [row] = await run<{ uid: number }>(em, `delete from sandbox_uid_leases where session_id = ? returning uid`, [
    sessionId,
  ]);
  return row?.uid;
}
