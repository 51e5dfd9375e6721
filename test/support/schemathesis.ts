/**
 * Schemathesis (from PyPI), which fuzzes the API from its OpenAPI document: found in the tool
 * folder, or installed there with pip by the fuzz test that needs it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
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
  const folder = await findOrInstallPythonPackage('schemathesis', SCHEMATHESIS_PACKAGE, works, log);
  return { command: ['python3', '-c', ENTRY], env: pythonEnv(folder) };
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
