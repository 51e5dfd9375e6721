/** Runs a TypeScript entry point as a separate Node process (API, workers, agents, bare servers) that dies with the bench. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const REPO = path.resolve(__dirname, '..', '..');

export interface BenchChild {
  name: string;
  pid: number;
  process: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  exited: Promise<string>;
  /** The next IPC message for which `match` is true. */
  message<T>(match: (msg: unknown) => msg is T, timeoutMs: number): Promise<T>;
  stop(graceMs?: number): Promise<void>;
}

export interface ChildOptions {
  name: string;
  /** Path relative to the repository. */
  script: string;
  env: NodeJS.ProcessEnv;
  /** stdout and stderr go here (appended), never through the bench's own event loop. */
  logFile: string;
  ipc?: boolean;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** `script` is built JavaScript (under dist/), run without tsx, as production runs it. */
  compiled?: boolean;
}

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => process.platform === 'linux' && fs.existsSync(p));

export function startChild(opts: ChildOptions): BenchChild {
  const fd = fs.openSync(opts.logFile, 'a');
  // node --import tsx runs the file in this very process (the tsx CLI would put a wrapper process
  // in between), so the pid is the one whose memory and CPU we read.
  const nodeArgs = [
    ...(opts.nodeArgs ?? []),
    ...(opts.compiled ? [] : ['--import', 'tsx']),
    path.join(REPO, opts.script),
  ];
  // --pdeathsig: the kernel kills the child when the bench dies, even by SIGKILL.
  const [command, args] = SETPRIV
    ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', process.execPath, ...nodeArgs]]
    : [process.execPath, nodeArgs];
  const child = spawn(command, args, {
    cwd: REPO,
    env: opts.env,
    stdio: opts.ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? String(code))),
  );
  return {
    name: opts.name,
    pid: child.pid!,
    process: child,
    exited,
    message<T>(match: (msg: unknown) => msg is T, timeoutMs: number): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const onMessage = (msg: unknown) => {
          if (!match(msg)) return;
          cleanup();
          resolve(msg);
        };
        const onExit = () => {
          cleanup();
          reject(new Error(`${opts.name} exited before it was ready; see ${opts.logFile}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${opts.name} sent no ready message within ${timeoutMs / 1000} s; see ${opts.logFile}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          child.off('message', onMessage);
          child.off('exit', onExit);
        };
        child.on('message', onMessage);
        child.once('exit', onExit);
      });
    },
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
