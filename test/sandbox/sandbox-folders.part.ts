/**
 * A worker whose sandbox folder the sessions' users cannot reach does not start, and says which folder:
 * before, it started, and every coding session's workspace preparation failed until its deadline.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp } from '../support/test-app';

it("refuses to start a worker whose sandbox folder the sessions' users cannot reach, naming it", async () => {
  const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-closed-'));
  const dir = path.join(closed, 'sandbox');
  const t = await startTestApp({ ARENA_SANDBOX_DIR: dir });
  try {
    await expect(t.startWorker()).rejects.toThrow(
      `ARENA_SANDBOX_DIR ${dir} cannot be reached by the sessions' users: ${closed} does not let others pass (mode 700); choose a folder outside it`,
    );
  } finally {
    await t.close();
    fs.rmSync(closed, { recursive: true, force: true });
  }
}, 60_000);
