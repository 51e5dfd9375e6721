/**
 * One sandboxed run: prlimit, setpriv and bubblewrap around the command, fed and read over pipes,
 * ended whole at its wall time or when its signal aborts. `isolation.ts` decides whether a run may
 * happen at all.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { ArenaError } from '../../domain/errors';
import type { SandboxLimits } from '../config';
import { CapturedOutput, type KeptPart } from './captured-output';
import { inheritedDescriptors } from './inherited-descriptors';
import {
  DATA_FDS,
  FIRST_FREE_FD,
  INFO_FD,
  REPORT_FD,
  WIRE_IN_FD,
  WIRE_OUT_FD,
  sandboxArguments,
  sandboxDataFiles,
  type SandboxInvocation,
} from './sandbox-arguments';
import type { SandboxTools, SystemLayout } from './system-layout';
import type { Workspace } from './workspaces';

/** The exit code of a command stopped at its wall time, as coreutils' `timeout` reports it (137 is SIGKILL's, for other kills). */
export const WALL_TIMEOUT_EXIT_CODE = 124;
/** How long after its wall time a sandbox that did not stop is killed whole. */
const KILL_GRACE_MS = 5_000;

export interface IsolatedRun {
  workspace: Pick<Workspace, 'dir' | 'uid'>;
  /** A string runs through `/bin/sh -c`; a list is the program and its arguments. */
  command: string | string[];
  stdin?: string;
  /** Wall time, kept by the worker. */
  timeoutSeconds: number;
  limits: SandboxLimits;
  /** Which part of a longer output to keep: its start (the default), or its end. */
  keep?: KeptPart;
  /** How the sandbox shows its folders, beyond the workspace (scoring shows it read-only, with the harness). */
  view?: Pick<SandboxInvocation, 'workspaceReadOnly' | 'home' | 'readOnlyBinds' | 'readWriteBinds'>;
  /** Read what the command writes to descriptor REPORT_FD (a test harness's report), up to 1 MiB. */
  report?: boolean;
  /** The wire to another sandbox's command: `from` feeds descriptor WIRE_IN_FD, WIRE_OUT_FD feeds `to`. */
  wire?: { from: Readable; to: Writable };
  /** Ends the sandbox early, whole, when it aborts (a candidate once its judge has reported). */
  signal?: AbortSignal;
  /** The cpu control group the sandbox runs in (cpu-groups.ts), entered before anything of it starts. */
  cpuGroup?: string;
}

export interface IsolatedResult {
  /** 128 + n for a command ended by signal n; WALL_TIMEOUT_EXIT_CODE past its wall time. */
  exit_code: number;
  stdout: string;
  stderr: string;
  /** Whether stdout or stderr was cut at the output limit. */
  truncated: boolean;
  duration_ms: number;
  /** What the command wrote to REPORT_FD, when `report` was asked for. */
  report?: string;
}

/** The most of a harness's report that is read: a report is a line per test. */
const MAX_REPORT_BYTES = 1024 * 1024;

/**
 * Spawns the run's sandbox with the machine's tools and layout (the isolation check found them)
 * and collects its result: its output within the limits, its exit, and its report when asked.
 */
export async function spawnSandbox(
  state: { tools: SandboxTools; layout: SystemLayout },
  run: IsolatedRun,
): Promise<IsolatedResult> {
  const argv = typeof run.command === 'string' ? ['/bin/sh', '-c', run.command] : run.command;
  if (argv.length === 0 || argv[0] === '') throw new ArenaError('invalid', 'command must not be empty');
  const args = sandboxArguments({
    tools: state.tools,
    layout: state.layout,
    workspaceDir: run.workspace.dir,
    uid: run.workspace.uid,
    limits: run.limits,
    argv,
    ...run.view,
  });
  // Descriptors this process inherited without close-on-exec are covered by /dev/null in the child.
  const leaked = (await inheritedDescriptors()).filter((fd) => fd >= FIRST_FREE_FD);
  const devNull = leaked.length > 0 ? await fs.open('/dev/null', 'r') : undefined;
  const stdio: Array<'pipe' | 'ignore' | number> = ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'];
  stdio[REPORT_FD] = run.report ? 'pipe' : 'ignore';
  stdio[WIRE_IN_FD] = run.wire ? 'pipe' : 'ignore';
  stdio[WIRE_OUT_FD] = run.wire ? 'pipe' : 'ignore';
  for (const fd of leaked) {
    while (stdio.length <= fd) stdio.push('ignore');
    stdio[fd] = devNull!.fd;
  }

  const started = performance.now();
  // An empty environment: nothing of the worker's (keys, database URLs) reaches even bubblewrap.
  const [program, ...programArgs] = run.cpuGroup
    ? // The shell enters the group and becomes prlimit: everything the sandbox starts is in the group.
      [
        '/bin/sh',
        '-c',
        '{ echo $$ >"$0/cgroup.procs"; } 2>/dev/null; exec "$@"',
        run.cpuGroup,
        state.tools.prlimit,
        ...args,
      ]
    : [state.tools.prlimit, ...args];
  const child = spawn(program!, programArgs, { stdio, env: {}, detached: true });
  // Everything is listened to before anything is awaited: a spawn that fails (no descriptors or
  // processes left) reports it on the next tick, and Node throws away the output of a child that
  // exits before anyone reads it (a bubblewrap that fails at once, with the reason in it).
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, signalName) => resolve([exitCode, signalName]));
  });
  // Read once the close below is done; marked handled meanwhile.
  exited.catch(() => undefined);
  const pipes = (child.stdio ?? []) as Array<Readable | Writable | null | undefined>;
  // A pipe the sandbox closed early (ECONNRESET, EPIPE) is its exit, which 'close' reports.
  for (const pipe of pipes) pipe?.on('error', () => undefined);
  const stdout = new CapturedOutput(run.limits.outputBytes, run.keep);
  const stderr = new CapturedOutput(run.limits.outputBytes, run.keep);
  child.stdout?.on('data', (chunk: Buffer) => stdout.add(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.add(chunk));
  let sandboxInfo = '';
  pipes[INFO_FD]?.on('data', (chunk: Buffer) => (sandboxInfo += chunk.toString('utf8')));
  const report = run.report ? new CapturedOutput(MAX_REPORT_BYTES) : undefined;
  pipes[REPORT_FD]?.on('data', (chunk: Buffer) => report?.add(chunk));
  if (run.wire) {
    run.wire.from.pipe(pipes[WIRE_IN_FD] as Writable);
    (pipes[WIRE_OUT_FD] as Readable).pipe(run.wire.to);
  }
  await devNull?.close();
  if (child.pid === undefined) {
    const reason = await exited.then(
      () => 'it ended at once',
      (err: NodeJS.ErrnoException) => err.code ?? err.message,
    );
    throw new Error(`the sandbox could not be started (${reason})`);
  }
  const data = sandboxDataFiles(run.workspace.uid);
  for (const [file, fd] of Object.entries(DATA_FDS))
    writeAndClose(pipes[fd] as Writable | undefined, data[file as keyof typeof data]);
  writeAndClose(child.stdin, run.stdin ?? '');

  let timedOut = false;
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = (pid: number) => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already (ESRCH): what the kill was for.
    }
  };
  const killGroup = () => {
    if (running() && child.pid) kill(-child.pid);
  };
  let fallback: NodeJS.Timeout | undefined;
  const stopWhole = () => {
    // Killing the sandbox's first process (its PID 1) ends every process in its PID namespace.
    const sandboxInit = /"child-pid":\s*(\d+)/.exec(sandboxInfo)?.[1];
    if (sandboxInit && running()) kill(Number(sandboxInit));
    else killGroup();
    fallback ??= setTimeout(killGroup, KILL_GRACE_MS);
  };
  const wallTimer = setTimeout(() => {
    timedOut = true;
    stopWhole();
  }, run.timeoutSeconds * 1000);
  if (run.signal?.aborted) stopWhole();
  else run.signal?.addEventListener('abort', stopWhole, { once: true });

  try {
    const [code, signal] = await exited;
    const sandboxInit = /"child-pid":\s*(\d+)/.exec(sandboxInfo)?.[1];
    if (sandboxInit) await sandboxEnded(Number(sandboxInit), run.workspace.uid);
    return {
      exit_code: timedOut ? WALL_TIMEOUT_EXIT_CODE : (code ?? 128 + (os.constants.signals[signal!] ?? 0)),
      stdout: stdout.text(),
      stderr: stderr.text(),
      truncated: stdout.truncated || stderr.truncated,
      duration_ms: Math.round(performance.now() - started),
      ...(report ? { report: report.text() } : {}),
    };
  } finally {
    clearTimeout(wallTimer);
    clearTimeout(fallback);
    run.signal?.removeEventListener('abort', stopWhole);
  }
}

/**
 * Waits for the sandbox's PID 1 to be dead: bubblewrap reports the command's exit as soon as it has it,
 * while its PID 1 is still killing what is left in the namespace. After this, nothing of the run is
 * running, so a file step that follows cannot race it.
 */
async function sandboxEnded(pid: number, uid: number): Promise<void> {
  const deadline = Date.now() + KILL_GRACE_MS;
  while (Date.now() < deadline) {
    const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    // Gone, a zombie, or the number reused by someone else's process.
    if (!new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status) || /^State:\s+Z/m.test(status)) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

function writeAndClose(stream: Writable | null | undefined, text: string): void {
  stream?.end(text);
}
