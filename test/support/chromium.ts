/**
 * Finds the Chromium the browser tests drive (playwright-core cannot download one here), installing
 * Debian's package through apt when run as root, the way infra/embedded/temporal-cli.ts gets its CLI.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';
/** apt-get update and the package with its dependencies: minutes on a slow mirror. */
const APT_TIMEOUT_MS = 15 * 60_000;

export interface FindChromiumOptions {
  /** CHROMIUM_PATH: used as is, and an error if it is not an executable file. */
  explicitPath?: string;
  log?: (line: string) => void;
}

export async function findOrInstallChromium(opts: FindChromiumOptions = {}): Promise<string> {
  const log = opts.log ?? (() => undefined);
  if (opts.explicitPath) {
    if (!(await isExecutable(opts.explicitPath)))
      throw new Error(`CHROMIUM_PATH is ${opts.explicitPath}, which is not an executable file`);
    return opts.explicitPath;
  }
  if (await isExecutable(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `no Chromium at ${DEBIAN_CHROMIUM}, and only root can install it here: run ` +
        '`sudo apt-get update && sudo apt-get install -y chromium`, or set CHROMIUM_PATH to a Chromium or Chrome binary',
    );
  }
  log(`installing Debian's chromium package (apt-get update && apt-get install -y chromium)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['update', '-qq'], { env, timeout: APT_TIMEOUT_MS });
    await run('apt-get', ['install', '-y', '-qq', 'chromium'], {
      env,
      timeout: APT_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr?.trim().split('\n').pop() ?? (err as Error).message;
    throw new Error(`apt-get could not install chromium (${detail}); install it another way and set CHROMIUM_PATH`);
  }
  if (!(await isExecutable(DEBIAN_CHROMIUM)))
    throw new Error(`apt-get installed chromium, but ${DEBIAN_CHROMIUM} is not there`);
  return DEBIAN_CHROMIUM;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.access(file, fs.constants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}
