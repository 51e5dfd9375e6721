/**
 * Host-wide locks on sandbox uids. A uid's lease row lives in one arena's database, so two arenas on
 * one machine (a staging and a production, or a test run beside a developer's arena) could lease the
 * same uid, and one session's end would kill the other's processes. A lease is therefore also held by
 * a lock every arena process on the host honours: an abstract Unix socket named for the uid, which
 * only one process on the machine can listen on, and which the kernel releases when that process
 * ends, however it ends (no stale lock files to clean up).
 */
import net from 'node:net';

/** The abstract socket's name for a uid (Linux's abstract namespace: a leading NUL, no file). */
export function uidLockName(uid: number): string {
  return `\0agent-arena-sandbox-uid:${uid}`;
}

export class HostUidLocks {
  private readonly held = new Map<number, net.Server>();

  /** Takes the uid's lock for this process: false when another process on the host holds it. */
  async hold(uid: number): Promise<boolean> {
    if (this.held.has(uid)) return true;
    const server = net.createServer((socket) => socket.destroy());
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(uidLockName(uid), () => resolve());
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') return false;
      throw err;
    }
    // A held lock never keeps the process alive.
    server.unref();
    this.held.set(uid, server);
    return true;
  }

  /** Gives the uid's lock back; nothing when this process does not hold it. */
  async release(uid: number): Promise<void> {
    const server = this.held.get(uid);
    if (!server) return;
    this.held.delete(uid);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Whether this process holds the uid's lock. */
  holds(uid: number): boolean {
    return this.held.has(uid);
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.keys()].map((uid) => this.release(uid)));
  }
}
