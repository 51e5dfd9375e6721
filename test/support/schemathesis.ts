/**
 * Schemathesis (from PyPI), which fuzzes the API from its OpenAPI document: found in the tool
 * folder, or installed there with pip. The test set-up starts the install beside the tests
 * (`installSchemathesisInBackground`), so the fuzz test waits only for what is left of it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterBackgroundInstall, installInBackground } from './background-install';
import { findOrInstallPythonPackage, pythonEnv } from './python-packages';

const run = promisify(execFile);
export const SCHEMATHESIS_PACKAGE = 'schemathesis==4.32.5';
const ENTRY =
  "import sys; sys.argv[0] = 'schemathesis'; from schemathesis.cli import schemathesis; sys.exit(schemathesis())";

export interface Schemathesis {
  /** The command and its leading arguments: `[...command, 'run', ...]`. */
  command: string[];
  env: NodeJS.ProcessEnv;
}

async function works(env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    const { stdout } = await run('python3', ['-c', ENTRY, '--version'], { env, timeout: 60_000 });
    return /^schemathesis, version \d/m.test(stdout);
  } catch {
    return false;
  }
}

export async function findOrInstallSchemathesis(log: (line: string) => void = () => undefined): Promise<Schemathesis> {
  // Half a minute of pip the first time: wait for the set-up's install rather than start a second.
  await afterBackgroundInstall(MARKER_VARIABLE, 'Schemathesis');
  const folder = await findOrInstallPythonPackage('schemathesis', SCHEMATHESIS_PACKAGE, works, log);
  return { command: ['python3', '-c', ENTRY], env: pythonEnv(folder) };
}

const MARKER_VARIABLE = 'TEST_SCHEMATHESIS_MARKER';

/** Starts the install for the run's fuzz tests (global-setup.ts); `marker` is written when it ends. */
export function installSchemathesisInBackground(marker: string): Promise<void> {
  return installInBackground(MARKER_VARIABLE, marker, () =>
    findOrInstallPythonPackage('schemathesis', SCHEMATHESIS_PACKAGE, works),
  );
}

if (require.main === module) {
  findOrInstallSchemathesis(console.log).then(
    () => console.log('schemathesis ready'),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
