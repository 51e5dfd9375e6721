/**
 * A uid of its own for each scoring's judge. A uid's processes, threads and files count together on
 * the host (its process limit is per uid), so judges sharing one would share that budget: one
 * account's judges holding it would fail another account's tests. Each scoring leases a uid for its
 * judge alone, by the same host-wide lock the sessions' uids hold: first from the judges' own block
 * of the range (one per scoring slot, never leased to a session, so a worker's scorings always find
 * one), then, with several workers on one host, any uid of the sessions' part that no live session
 * and no other judge on this machine, of any arena, holds. Nothing of an earlier holder is left
 * running as it when it is handed out.
 */
import { randomInt } from 'node:crypto';
import { HostUidLocks } from './host-uid-locks';
import { stopProcessesOf } from './session-processes';

/** Uids of the sessions' part tried before a lease waits and looks again (the part is wide: a held one is rare). */
const TRIES = 64;
/** How long a lease waits when every uid it tried was held. */
const RETRY_MS = 250;

export class JudgeUidsExhaustedError extends Error {
  constructor(readonly waitedMs: number) {
    super(`no uid of the sandbox's range was free for a judge within ${Math.round(waitedMs / 1000)} s`);
    this.name = 'JudgeUidsExhaustedError';
  }
}

export class JudgeUids {
  /** The judges' locks, apart from the sessions' (a lock of the same process is still refused to the other). */
  private readonly locks = new HostUidLocks();
  /** Uids this process gave back with nothing of them running: handed out again without a look. */
  private readonly clear = new Set<number>();

  constructor(
    /** The sandbox's range, as `uidRangeOf` shares it. */
    private readonly range: { uidBase: number; sessions: number; judgesBase: number; judges: number },
  ) {}

  /**
   * A uid for one judge, free on this host, with no process of it left; waits up to `waitMs` while
   * none is free. Give it back with `release`.
   */
  async lease(waitMs = 60_000): Promise<number> {
    const started = Date.now();
    for (;;) {
      const { uidBase, sessions, judgesBase, judges } = this.range;
      const first = randomInt(sessions);
      const candidates = [
        ...Array.from({ length: judges }, (_, i) => judgesBase + i),
        ...Array.from({ length: Math.min(TRIES, sessions) }, (_, i) => uidBase + ((first + i) % sessions)),
      ];
      for (const uid of candidates) {
        if (this.locks.holds(uid) || !(await this.locks.hold(uid))) continue;
        if (this.clear.delete(uid)) return uid;
        try {
          // Processes of a worker that died holding this uid would count against the judge's limit.
          await stopProcessesOf(uid);
          return uid;
        } catch {
          // Some cannot be stopped (uninterruptible): another uid will do.
          await this.locks.release(uid);
        }
      }
      if (Date.now() - started >= waitMs) throw new JudgeUidsExhaustedError(Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /**
   * Gives the uid back. `ended`: every sandbox of the judge's run was seen to end, so nothing of the
   * uid runs (its sandboxes are all it ran). Otherwise whatever still runs as it is ended first, while
   * the uid stays held; a scoring need not wait for that.
   */
  async release(uid: number, { ended = false }: { ended?: boolean } = {}): Promise<void> {
    try {
      if (!ended) await stopProcessesOf(uid);
      this.clear.add(uid);
    } catch {
      // Left to the next lease's look.
    } finally {
      await this.locks.release(uid);
    }
  }
}
