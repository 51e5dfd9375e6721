/** Tools the arena installs for itself (the Temporal CLI, a data set): into a staging folder, then renamed into place. */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { runCommand } from './processes';

/**
 * Installs into a private staging folder and renames it into place, so that two processes
 * racing (two jest runs, npm start beside CI) never see or produce a half-written CLI.
 */
export async function installInto(target: string, install: (staging: string) => Promise<unknown>): Promise<void> {
  const staging = `${target}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  try {
    await install(staging);
    await fs.rename(staging, target).catch((err: NodeJS.ErrnoException) => {
      // Someone else finished first; theirs is as good as ours.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/** `pip install --target <folder> <spec>` (Python 3 from PATH), staged like any tool. */
export function pipInstallInto(folder: string, spec: string, extraArgs: readonly string[] = []): Promise<void> {
  return installInto(folder, (staging) =>
    runCommand('python3', [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--no-input',
      ...extraArgs,
      '--target',
      staging,
      spec,
    ]),
  );
}
