/**
 * A session's processes on this machine: every process of its uid, since no two live sessions share
 * one. Stopping them is how a session ends before it is scored: nothing of it runs beside the tests.
 */
import fs from 'node:fs/promises';

/** How long `stopProcessesOf` keeps killing before it gives up (a process in uninterruptible sleep). */
const STOP_TIMEOUT_MS = 10_000;

/** The live processes (not zombies) whose real or effective uid is `uid`, by pid. */
export async function processesOf(uid: number): Promise<number[]> {
  const found: number[] = [];
  const ids = new RegExp(`^Uid:\\s+(\\d+)\\s+(\\d+)`, 'm');
  for (const name of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const status = await fs.readFile(`/proc/${name}/status`, 'utf8').catch(() => '');
    const [, real, effective] = ids.exec(status) ?? [];
    if ((Number(real) === uid || Number(effective) === uid) && !/^State:\s+Z/m.test(status)) found.push(Number(name));
  }
  return found;
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
    const left = await processesOf(uid);
    if (left.length === 0 && !busy()) return;
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
