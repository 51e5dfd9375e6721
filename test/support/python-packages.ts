/**
 * Python packages from PyPI for the tests that need them (Schemathesis, numpy, the A2A SDK): found
 * in a folder of the tests' tool directory (test/support/tool-dir.ts), or installed there with pip
 * by the first test that needs them (or by the test set-up, beside the tests).
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../../infra/embedded/processes';
import { testToolDir } from './tool-dir';

/** The environment that puts `folder`'s packages on Python's path. */
export function pythonEnv(folder: string): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONPATH: folder, PYTHONDONTWRITEBYTECODE: '1' };
}

/**
 * The folder holding `spec` (e.g. `numpy==2.2.6`) under the tool directory, installed with pip when
 * `works(env)` says the folder has not got it yet. The folder's name ends with a digest of `spec`,
 * so another pin gets a folder of its own.
 */
export async function findOrInstallPythonPackage(
  name: string,
  spec: string | readonly string[],
  works: (env: NodeJS.ProcessEnv) => Promise<boolean>,
  log: (line: string) => void = () => undefined,
): Promise<string> {
  const pins = crypto.createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 12);
  // Under a folder named site-packages: Hypothesis (under Schemathesis) mines constants for its
  // inputs from every module it takes for the code under test, which is any module outside a
  // site-packages folder, and parsing all of Schemathesis's and its libraries' sources took a
  // quarter of a fuzzing run's CPU (two fifths of the stateful phase's).
  const folder = path.join(testToolDir(), 'site-packages', `${name}-${pins}`);
  if (await works(pythonEnv(folder))) return folder;
  await fs.rm(folder, { recursive: true, force: true });
  await fs.mkdir(path.dirname(folder), { recursive: true });
  const staging = `${folder}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  log(`installing ${String(spec)} into ${folder}`);
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
      ...(typeof spec === 'string' ? [spec] : spec),
    ]);
    await fs.rename(staging, folder).catch((err: NodeJS.ErrnoException) => {
      // Someone else finished first; theirs is as good as ours.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
  if (!(await works(pythonEnv(folder))))
    throw new Error(`${String(spec)} was installed into ${folder} but does not work`);
  return folder;
}
