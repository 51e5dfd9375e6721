/**
 * A tool from a Debian package: found at its path, or installed through apt when this process is
 * root (bubblewrap for the embedded start and the tests, Chromium for the browser tests).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** apt-get update and the package with its dependencies: minutes on a slow mirror. */
const APT_TIMEOUT_MS = 15 * 60_000;

export interface DebianTool {
  /** The package's name, as apt knows it. */
  pkg: string;
  /** Where the package puts the tool. */
  binary: string;
  /** What to do instead, when apt cannot: appended to the errors. */
  otherwise: string;
  log?: (line: string) => void;
}

/** apt takes one install at a time (its lists and dpkg locks): installs asked for at once wait their turn. */
let aptTurn: Promise<unknown> = Promise.resolve();

export async function findOrInstallDebianTool(tool: DebianTool): Promise<string> {
  if (await isExecutable(tool.binary)) return tool.binary;
  const turn = aptTurn.then(() => install(tool));
  aptTurn = turn.catch(() => undefined);
  return turn;
}

async function install({ pkg, binary, otherwise, log = () => undefined }: DebianTool): Promise<string> {
  // Another install in this process may have brought it while this one waited.
  if (await isExecutable(binary)) return binary;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `no ${pkg} at ${binary}, and only root can install it here: run ` +
        `\`sudo apt-get update && sudo apt-get install -y ${pkg}\`, or ${otherwise}`,
    );
  }
  log(`installing Debian's ${pkg} package (apt-get update && apt-get install -y ${pkg})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['update', '-qq'], { env, timeout: APT_TIMEOUT_MS });
    await run('apt-get', ['install', '-y', '-qq', pkg], { env, timeout: APT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    // Another process (a second test run) may have held apt's lock and installed it meanwhile.
    if (await isExecutable(binary)) return binary;
    const detail = (err as { stderr?: string }).stderr?.trim().split('\n').pop() ?? (err as Error).message;
    throw new Error(`apt-get could not install ${pkg} (${detail}); ${otherwise}`);
  }
  if (!(await isExecutable(binary))) throw new Error(`apt-get installed ${pkg}, but ${binary} is not there`);
  return binary;
}

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.access(file, fs.constants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}
