/**
 * `npm run build` once per test run, for the tests of the compiled code (dist/): the first test
 * file to ask builds, any other waits for it, so two jest workers never write dist/ at once.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO = path.resolve(__dirname, '..', '..');
/** The whole build (the runner, the server compiled by SWC, the workflow bundle): about 10 s alone, a minute or more on a busy two-core machine. */
export const BUILD_TIMEOUT_MS = 300_000;

export async function ensureBuilt(): Promise<void> {
  const runDir = process.env.TEST_RUN_DIR;
  if (!runDir) throw new Error('TEST_RUN_DIR is unset: is test/support/global-setup.ts configured?');
  const lock = path.join(runDir, 'build.lock');
  const outcome = path.join(runDir, 'build.outcome');
  const won = await fs.writeFile(lock, String(process.pid), { flag: 'wx' }).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return false;
      throw err;
    },
  );
  if (won) {
    try {
      await run('npm', ['run', 'build'], { cwd: REPO, timeout: BUILD_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
      await fs.writeFile(outcome, 'ok');
    } catch (err) {
      const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
      await fs.writeFile(outcome, `npm run build failed:\n${stdout}${stderr}`.slice(-8000));
    }
  }
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  for (;;) {
    const text = await fs.readFile(outcome, 'utf8').catch(() => undefined);
    if (text === 'ok') return;
    if (text !== undefined) throw new Error(text);
    if (Date.now() > deadline) throw new Error(`no build after ${BUILD_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Throws unless this run's build is done (ensureBuilt resolved): for the process tests' compiled entries. */
export function assertBuilt(): void {
  const outcome = path.join(process.env.TEST_RUN_DIR ?? '', 'build.outcome');
  let text: string | undefined;
  try {
    text = readFileSync(outcome, 'utf8');
  } catch {
    text = undefined;
  }
  if (text !== 'ok') throw new Error('dist/ is not built for this run: await ensureBuilt() in the beforeAll first');
}
