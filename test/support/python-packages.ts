/**
 * Python packages from PyPI for the tests that need them (Schemathesis, numpy): found in a folder
 * of the tool directory, or installed there with pip by the first test that needs them.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../../infra/embedded/processes';

const TOOL_DIR = path.resolve(__dirname, '..', '..', '.arena', 'tools');

/** The environment that puts `folder`'s packages on Python's path. */
export function pythonEnv(folder: string): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONPATH: folder, PYTHONDONTWRITEBYTECODE: '1' };
}

/**
 * The folder holding `spec` (e.g. `numpy==2.2.6`) under the tool directory, installed with pip when
 * `works(env)` says the folder has not got it yet.
 */
export async function findOrInstallPythonPackage(
  name: string,
  spec: string,
  works: (env: NodeJS.ProcessEnv) => Promise<boolean>,
  log: (line: string) => void = () => undefined,
): Promise<string> {
  const folder = path.join(TOOL_DIR, name);
  if (await works(pythonEnv(folder))) return folder;
  await fs.rm(folder, { recursive: true, force: true });
  await fs.mkdir(TOOL_DIR, { recursive: true });
  const staging = `${folder}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  log(`installing ${spec} into ${folder}`);
  try {
    await runCommand('python3', [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--no-input',
      '--quiet',
      '--target',
      staging,
      spec,
    ]);
    await fs.rename(staging, folder).catch((err: NodeJS.ErrnoException) => {
      // Someone else finished first; theirs is as good as ours.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
  if (!(await works(pythonEnv(folder)))) throw new Error(`${spec} was installed into ${folder} but does not work`);
  return folder;
}
