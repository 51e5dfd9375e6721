/**
 * A session's processes on this machine: every process of its uid, since no two live sessions share
 * one. Stopping them is how a session ends before it is scored: nothing of it runs beside the tests.
 */
import fs from 'node:fs/promises';

/** How long `stopProcessesOf` keeps killing before it gives up (a process in uninterruptible sleep). */
const STOP_TIMEOUT_MS = 10_000;

/** The live processes (not zombies) whose real or effective uid is `uid`, by pid. */
export async function processesOf(uid: number): Promise<number[]> {
  const ids = new RegExp(`^Uid:\\s+(\\d+)\\s+(\\d+)`, 'm');
  const pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name));
  // Read side by side: one at a time, a machine's few hundred processes took over 10 ms.
  const statuses = await Promise.all(pids.map((pid) => fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')));
  return pids
    .filter((_, i) => {
      const status = statuses[i]!;
      const [, real, effective] = ids.exec(status) ?? [];
      return (Number(real) === uid || Number(effective) === uid) && !/^State:\s+Z/m.test(status);
    })
    .map(Number);
}

/**
 * SIGKILLs every process of `uid` until none is left, and `busy()` (a step that may still start one) is
 * false. Throws if some survive `timeoutMs`: the session must not be scored beside them.
 */
export async function stopProcessesOf(
  uid: number,
  busy: () => boolean = () => false,
  timeoutMs = STOP_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Asked before the look: a step that was in flight during it may have started a process the look missed.
    const wasBusy = busy();
    const left = await processesOf(uid);
    if (left.length === 0 && !wasBusy) return;
    if (Date.now() > deadline) {
      throw new Error(`the processes of uid ${uid} could not be stopped (${left.length} left: ${left.join(', ')})`);
    }
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
