/**
 * Each scoring's judge gets a uid of its own on the host: never one a session or another judge holds,
 * in this process or another, and never with an earlier holder's processes still running as it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { HostUidLocks } from '../../../infra/sandbox/host-uid-locks';
import { JudgeUids, JudgeUidsExhaustedError } from '../../../infra/sandbox/judge-uids';
import { processesOf } from '../../../infra/sandbox/session-processes';
import { until } from '../../support/wait';

// A range far from the arena's and the other tests' uids: one session's uid, then the judges' block of two.
const BASE = 3_800_000 + (process.pid % 1000) * 10;
const RANGE = { uidBase: BASE, sessions: 1, judgesBase: BASE + 1, judges: 2 };
const leasable = [BASE, BASE + 1, BASE + 2];

describe("judges' uids", () => {
  it("leases each judge a uid of the judges' block first, and never one a session or another judge holds", async () => {
    const sessions = new HostUidLocks();
    const judges = new JudgeUids(RANGE);
    try {
      // A session of this process holds the sessions' uid: the judges' locks are apart from it.
      expect(await sessions.hold(leasable[0]!)).toBe(true);
      const [one, two] = [await judges.lease(), await judges.lease()];
      expect([one, two]).toEqual(leasable.slice(1));
      // The judges' block is taken, and the session holds the rest: a third lease waits, and fails once its wait is over.
      await expect(judges.lease(300)).rejects.toBeInstanceOf(JudgeUidsExhaustedError);
      // A session cannot take a judge's uid either.
      expect(await sessions.hold(one)).toBe(false);
      const waiting = judges.lease(10_000);
      await judges.release(two);
      expect(await waiting).toBe(two);
      // Past its block (several workers on one host), a judge takes a uid of the sessions' part that no session holds.
      await sessions.release(leasable[0]!);
      expect(await judges.lease()).toBe(leasable[0]);
      for (const uid of leasable) await judges.release(uid);
    } finally {
      await sessions.releaseAll();
    }
  });

  it('ends what still runs as a uid before a judge gets it, and after it gives it back', async () => {
    const judges = new JudgeUids({ ...RANGE, judges: 1 });
    const uid = RANGE.judgesBase;
    // A process left running as the uid (a worker that died in the middle of a scoring).
    const left = spawn('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'sleep', '600'], {
      stdio: 'ignore',
    });
    const exited = once(left, 'exit');
    try {
      await until(async () => (await processesOf(uid)).length === 1, 'the process running as the uid');
      expect(await judges.lease()).toBe(uid);
      await exited;
      expect(await processesOf(uid)).toEqual([]);
      await judges.release(uid);
    } finally {
      left.kill('SIGKILL');
    }
  });
});
