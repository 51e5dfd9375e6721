/** Starting `arena-runner` as an owner does, from its sources or from an installed package's bin. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';

const REPO = path.resolve(__dirname, '..', '..', '..');

/**
 * The runner's sources as one script, bundled once per test file: what the compiled bin runs,
 * without a build step before the tests. Its dependencies stay outside (resolved from the
 * repository's node_modules), so it starts in about a third of the time `node --import tsx` takes
 * to compile the sources on every start, which the runner tests pay dozens of times.
 */
function bundledRunner(): string {
  const dir = path.join(REPO, 'node_modules', '.cache', 'arena-runner-tests');
  // One name per jest worker: the files a worker runs one after another rewrite it.
  const outfile = path.join(dir, `arena-runner-${process.pid}.cjs`);
  fs.mkdirSync(dir, { recursive: true });
  buildSync({
    entryPoints: [path.join(REPO, 'runner', 'src', 'arena-runner.ts')],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
  });
  process.once('exit', () => fs.rmSync(outfile, { force: true }));
  return outfile;
}

/** The command line that starts the runner from its sources. */
export const RUNNER_FROM_SOURCE: readonly string[] = [process.execPath, bundledRunner()];

export interface RunnerRun {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: ChildProcess[] = [];

/**
 * Runs `arena-runner <args>`. Each run leads its own process group, so a test can signal the group
 * the way Ctrl-C in a terminal does. ARENA_BASE_URL and ARENA_AGENT_SECRET of the test process are
 * cleared unless `env` sets them. `runner` is the command line that starts the runner itself.
 */
export function startRunner(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  runner: readonly string[] = RUNNER_FROM_SOURCE,
): RunnerRun {
  const [file, ...before] = runner;
  const child = spawn(file!, [...before, ...args], {
    env: { ...process.env, ARENA_BASE_URL: '', ARENA_AGENT_SECRET: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stderr: () => stderr, exited };
}

/** Kills every runner this test file started that still runs. */
export function killRunners(): void {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command line to its end with `stdin` as its input: `arena-runner <args>` by default. The
 * session variables and ARENA_AGENT_SECRET of the test process are cleared unless `env` sets them.
 */
export function runToEnd(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  stdin = '',
  runner: readonly string[] = RUNNER_FROM_SOURCE,
): Promise<Finished> {
  const [file, ...before] = runner;
  const inherited = { ...process.env };
  for (const name of ['ARENA_AGENT_SECRET', 'ARENA_SANDBOX_API', 'ARENA_SANDBOX_TOKEN']) delete inherited[name];
  const child = spawn(file!, [...before, ...args], {
    env: { ...inherited, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin!.on('error', () => {});
  child.stdin!.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
