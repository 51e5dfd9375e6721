/**
 * The Python A2A SDK (`a2a-sdk` 1.x with its HTTP server, and uvicorn), which the Python example
 * agent (examples/a2a-agent-python) runs on: found in the tool folder, or installed there with pip.
 * The test set-up starts the install beside the tests (`installA2aPythonInBackground`).
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterBackgroundInstall, installInBackground } from './background-install';
import { findOrInstallPythonPackage, pythonEnv } from './python-packages';
import { until } from './wait';

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

/** Google ADK with its A2A extra, for the slow set's test of the ADK example (a large install). */
export async function findOrInstallAdk(): Promise<NodeJS.ProcessEnv> {
  const works = async (env: NodeJS.ProcessEnv) => {
    try {
      await run('python3', ['-c', 'import google.adk.a2a.utils.agent_to_a2a, uvicorn'], { env, timeout: 120_000 });
      return true;
    } catch {
      return false;
    }
  };
  return pythonEnv(
    await findOrInstallPythonPackage('adk-python', ['google-adk[a2a]==2.13.0', 'uvicorn==0.38.0'], works),
  );
}

export interface PythonAgent {
  stop(): void;
}

/**
 * Starts a Python A2A agent of examples/a2a-agent-python with the agent's secret on `port`, and
 * resolves once its card is served.
 */
export async function startPythonAgent(
  script: string,
  env: NodeJS.ProcessEnv,
  secret: string,
  port: number,
): Promise<PythonAgent> {
  let stderr = '';
  const child = spawn('python3', [script], {
    env: { ...env, ARENA_AGENT_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const stop = () => void child.kill('SIGTERM');
  try {
    await until(
      async () => (await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`).catch(() => undefined))?.ok,
      () => `the card of ${script} (its stderr: ${stderr})`,
      60_000,
    );
  } catch (err) {
    stop();
    throw err;
  }
  return { stop };
}
