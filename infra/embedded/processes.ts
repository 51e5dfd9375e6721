/** Runs the embedded servers as child processes that do not outlive this Node process. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';

export interface ServiceExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  pid: number;
  /** Resolves once the process has exited; never rejects. */
  exited: Promise<ServiceExit>;
  hasExited(): boolean;
  /** The last lines it printed, for error messages. */
  recentOutput(): string;
  /** Sends `signal`, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(signal: NodeJS.Signals, graceMs: number): Promise<void>;
}

export interface SpawnServiceOptions {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
  /** What the process receives if this Node process ends without calling `stop`. */
  exitSignal: NodeJS.Signals;
  log?: (line: string) => void;
}

const RECENT_LINES = 40;
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => process.platform === 'linux' && isExecutable(p));

export function spawnService(opts: SpawnServiceOptions): ServiceProcess {
  // setpriv --pdeathsig makes the kernel signal the server when we die, even by SIGKILL,
  // where an 'exit' handler never runs. Without setpriv only the handler below is left.
  const [command, args] = SETPRIV
    ? [SETPRIV, ['--pdeathsig', opts.exitSignal, '--', opts.command, ...opts.args]]
    : [opts.command, opts.args];
  // A process group of its own keeps a terminal's Ctrl-C away from the server, so that
  // start.ts can stop the API and the worker before the servers they depend on.
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    uid: opts.uid,
    gid: opts.gid,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  const recent: string[] = [];
  const remember = (line: string): void => {
    recent.push(line);
    if (recent.length > RECENT_LINES) recent.shift();
    opts.log?.(line);
  };
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (partial + chunk).split(/\r?\n/);
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') remember(line);
    });
    stream.on('end', () => {
      if (partial.trim() !== '') remember(partial);
      partial = '';
    });
  }

  let exitInfo: ServiceExit | undefined;
  const onProcessExit = (): void => {
    if (exitInfo || child.pid === undefined) return;
    try {
      process.kill(child.pid, opts.exitSignal);
    } catch {
      // already gone
    }
  };
  process.on('exit', onProcessExit);

  const exited = new Promise<ServiceExit>((resolve) => {
    child.once('error', (err) => {
      remember(`${opts.name}: ${err.message}`);
      if (child.pid === undefined) finish({ code: null, signal: null });
    });
    child.once('close', (code, signal) => finish({ code, signal }));
    function finish(info: ServiceExit): void {
      if (exitInfo) return;
      exitInfo = info;
      process.removeListener('exit', onProcessExit);
      resolve(info);
    }
  });

  return {
    pid: child.pid ?? -1,
    exited,
    hasExited: () => exitInfo !== undefined,
    recentOutput: () => recent.join('\n'),
    async stop(signal, graceMs) {
      if (exitInfo || child.pid === undefined) return;
      child.kill(signal);
      const timer = setTimeout(() => {
        opts.log?.(`${opts.name} did not stop within ${graceMs} ms; killing it`);
        child.kill('SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Polls `attempt` until it resolves, the process exits, or `timeoutMs` passes. */
export async function waitUntilReady(
  service: ServiceProcess,
  name: string,
  timeoutMs: number,
  attempt: () => Promise<void>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (service.hasExited()) {
      const { code, signal } = await service.exited;
      throw new Error(
        `${name} exited during start-up (code ${code ?? '-'}, signal ${signal ?? '-'}); its last output:\n${service.recentOutput()}`,
      );
    }
    try {
      await attempt();
      return;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(
    `${name} was not ready after ${timeoutMs / 1000} s (last error: ${reason}); its last output:\n${service.recentOutput()}`,
  );
}

export interface CommandOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
}

/**
 * Runs a set-up command (initdb, pip) to completion in a process group of its own, so that a
 * Ctrl-C during start-up lets it finish instead of killing it half way; start.ts stops after it.
 */
export function runCommand(
  command: string,
  args: string[],
  opts: CommandOptions = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new Error(
            `${command} ${args.join(' ')} failed (code ${code ?? '-'}, signal ${signal ?? '-'}):\n${stderr || stdout}`,
          ),
        );
    });
  });
}

/** The reason a failed command gives: pip, go, pg_dump and their kind put it on the last line they print. */
export function lastLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (
    message
      .split('\n')
      .filter((l) => l.trim())
      .pop() ?? message
  );
}
