/**
 * A coding task's hidden tests run by the arena's harness as scoring runs them, minus the sandbox: the
 * starting files (and optionally the reference solution) in a fresh folder, the hidden tests under
 * `.hidden-tests/`, the harness from its own folder, the report read from its descriptor.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { scoreHarnessRun, type HarnessScore } from '../../domain/sandbox/harness-report';
import { harnessCommand, HARNESS_DIR } from '../../infra/sandbox/harness';
import { REPORT_FD } from '../../infra/sandbox/sandbox-arguments';
import { systemLayout } from '../../infra/sandbox/system-layout';
import { HIDDEN_TESTS_DIR, type SandboxTask } from '../../infra/sandbox/task-catalogue';

export interface HarnessRun {
  /** Null when the run was killed (its time limit). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  score: HarnessScore;
}

/** The folder as the clean room holds it: the hidden tests replace anything already under `.hidden-tests/`. */
export async function prepareTaskFolder(task: SandboxTask, folder: string, solution: boolean): Promise<void> {
  await fs.cp(task.paths.files, folder, { recursive: true });
  if (solution) await fs.cp(task.paths.solution, folder, { recursive: true, force: true });
  const hidden = path.join(folder, HIDDEN_TESTS_DIR);
  await fs.rm(hidden, { recursive: true, force: true });
  await fs.cp(task.paths.tests, hidden, { recursive: true });
}

/** The harness on `folder`, with a bare environment: nothing of this process's variables leaks in. */
export async function runHarness(task: SandboxTask, folder: string): Promise<HarnessRun> {
  const { interpreters } = await systemLayout();
  const [program = '', ...args] = harnessCommand(task.manifest.language, {
    harnessDir: HARNESS_DIR,
    codeDir: folder,
    testsDir: path.join(folder, HIDDEN_TESTS_DIR),
    python: interpreters.python3 ?? 'python3',
    node: interpreters.node,
  });
  const nonce = randomBytes(16).toString('hex');
  const stdio: Array<'pipe' | 'ignore'> = Array.from({ length: REPORT_FD + 1 }, () => 'ignore');
  for (const fd of [0, 1, 2, REPORT_FD]) stdio[fd] = 'pipe';
  const child = spawn(program, args, { cwd: folder, env: { PATH: '/usr/bin:/bin', HOME: os.tmpdir() }, stdio });
  const read = (stream: unknown) => {
    const chunks: Buffer[] = [];
    (stream as Readable).on('data', (chunk: Buffer) => chunks.push(chunk));
    return () => Buffer.concat(chunks).toString('utf8');
  };
  const [stdout, stderr, report] = [
    read(child.stdout),
    read(child.stderr),
    read((child.stdio as unknown as Readable[])[REPORT_FD]),
  ];
  child.stdin?.end(`${nonce}\n`);
  const timer = setTimeout(() => child.kill('SIGKILL'), task.manifest.limits.test_timeout_seconds * 1000);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  }).finally(() => clearTimeout(timer));
  return {
    exitCode,
    stdout: stdout(),
    stderr: stderr(),
    score: scoreHarnessRun(report(), nonce, task.manifest.tests_total),
  };
}

/** The harness on a task's starting files (and its solution, if asked) in a temporary folder, removed afterwards. */
export async function runTaskTests(task: SandboxTask, { solution }: { solution: boolean }): Promise<HarnessRun> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-task-'));
  try {
    await prepareTaskFolder(task, folder, solution);
    return await runHarness(task, folder);
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}
