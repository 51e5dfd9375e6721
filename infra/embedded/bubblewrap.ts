/**
 * Finds bubblewrap, which runs every command of a coding sandbox session, installing Debian's package
 * through apt when run as root (the embedded start and the test set-up), as the Temporal CLI is fetched.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const DEBIAN_BWRAP = '/usr/bin/bwrap';
const APT_TIMEOUT_MS = 15 * 60_000;

export async function findOrInstallBubblewrap(opts: { log?: (line: string) => void } = {}): Promise<string> {
  const log = opts.log ?? (() => undefined);
  if (await isExecutable(DEBIAN_BWRAP)) return DEBIAN_BWRAP;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `no bubblewrap at ${DEBIAN_BWRAP}, and only root can install it here: run ` +
        '`sudo apt-get update && sudo apt-get install -y bubblewrap`',
    );
  }
  log(`installing Debian's bubblewrap package (apt-get update && apt-get install -y bubblewrap)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['update', '-qq'], { env, timeout: APT_TIMEOUT_MS });
    await run('apt-get', ['install', '-y', '-qq', 'bubblewrap'], {
      env,
      timeout: APT_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    // Both test projects may install at once; the one that lost the dpkg lock finds the other's.
    if (await isExecutable(DEBIAN_BWRAP)) return DEBIAN_BWRAP;
    const detail = (err as { stderr?: string }).stderr?.trim().split('\n').pop() ?? (err as Error).message;
    throw new Error(`apt-get could not install bubblewrap (${detail}); install Debian's bubblewrap package`);
  }
  if (!(await isExecutable(DEBIAN_BWRAP)))
    throw new Error(`apt-get installed bubblewrap, but ${DEBIAN_BWRAP} is not there`);
  return DEBIAN_BWRAP;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.access(file, fs.constants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}
