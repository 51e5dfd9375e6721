/**
 * The Python A2A SDK (`a2a-sdk` 1.x with its HTTP server, and uvicorn), which the Python example
 * agent (examples/a2a-agent-python) runs on: found in the tool folder, or installed there with pip.
 * The test set-up starts the install beside the tests (`installA2aPythonInBackground`).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterBackgroundInstall, findOrInstallPythonPackage, installInBackground, pythonEnv } from './python-packages';

const run = promisify(execFile);
/** As the example's README pins them. */
export const A2A_PYTHON_PACKAGES = ['a2a-sdk[http-server]==1.3.0', 'uvicorn==0.38.0'];
const MARKER_VARIABLE = 'TEST_A2A_PYTHON_MARKER';

async function works(env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await run('python3', ['-c', 'import a2a.server.routes, uvicorn'], { env, timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

/** The environment a Python A2A agent runs in: the SDK on its path. */
export async function findOrInstallA2aPython(): Promise<NodeJS.ProcessEnv> {
  await afterBackgroundInstall(MARKER_VARIABLE, 'Python A2A SDK');
  return pythonEnv(await findOrInstallPythonPackage('a2a-python', A2A_PYTHON_PACKAGES, works));
}

/** Starts the install for the run's Python A2A tests (global-setup.ts); `marker` is written when it ends. */
export function installA2aPythonInBackground(marker: string): Promise<void> {
  return installInBackground(MARKER_VARIABLE, marker, () =>
    findOrInstallPythonPackage('a2a-python', A2A_PYTHON_PACKAGES, works),
  );
}
