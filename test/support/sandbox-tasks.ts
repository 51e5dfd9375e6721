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
import { candidateCommand, judgeCommand, HARNESS_DIR } from '../../infra/sandbox/harness';
import { REPORT_FD, WIRE_IN_FD, WIRE_OUT_FD } from '../../infra/sandbox/sandbox-arguments';
import { systemLayout } from '../../infra/sandbox/system-layout';
import { HIDDEN_TESTS_DIR, type SandboxTask } from '../../infra/sandbox/task-catalogue';

export interface HarnessRun {
  /** Null when the run was killed (its time limit). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  score: HarnessScore;
  /** What the harness wrote on its report descriptor. */
  report: string;
}

/** The folder as the clean room holds it: the hidden tests replace anything already under `.hidden-tests/`. */
export async function prepareTaskFolder(task: SandboxTask, folder: string, solution: boolean): Promise<void> {
  await fs.cp(task.paths.files, folder, { recursive: true });
  if (solution) await fs.cp(task.paths.solution, folder, { recursive: true, force: true });
  const hidden = path.join(folder, HIDDEN_TESTS_DIR);
  await fs.rm(hidden, { recursive: true, force: true });
  await fs.cp(task.paths.tests, hidden, { recursive: true });
}

/** A process of a run, its output read: what it printed and what it wrote on its report descriptor. */
function started(program: string, args: string[], cwd: string, wire: boolean) {
  const stdio: Array<'pipe' | 'ignore'> = Array.from({ length: WIRE_OUT_FD + 1 }, () => 'ignore');
  for (const fd of [0, 1, 2, REPORT_FD, ...(wire ? [WIRE_IN_FD, WIRE_OUT_FD] : [])]) stdio[fd] = 'pipe';
  const child = spawn(program, args, { cwd, env: { PATH: '/usr/bin:/bin', HOME: os.tmpdir() }, stdio });
  const read = (stream: unknown) => {
    const chunks: Buffer[] = [];
    (stream as Readable).on('data', (chunk: Buffer) => chunks.push(chunk));
    return () => Buffer.concat(chunks).toString('utf8');
  };
  const pipes = child.stdio as unknown as Array<Readable & NodeJS.WritableStream>;
  // A side that ends while the other still writes (ECONNRESET, EPIPE) is its exit, which 'close' reports.
  for (const pipe of pipes) pipe?.on('error', () => undefined);
  const output = { stdout: read(child.stdout), stderr: read(child.stderr), report: read(pipes[REPORT_FD]) };
  const closed = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  return { child, pipes, output, closed };
}

/**
 * The harness on `folder`, with a bare environment: nothing of this process's variables leaks in. It
 * runs as scoring runs it, minus the sandboxes: the judge on the hidden tests (in a folder of their
 * own, away from the code) and the candidate on the code, wired to each other.
 */
export async function runHarness(
  task: SandboxTask,
  folder: string,
  options: { callSeconds?: number } = {},
): Promise<HarnessRun> {
  const { interpreters } = await systemLayout();
  return runJudged(task, folder, interpreters, options);
}

async function runJudged(
  task: SandboxTask,
  folder: string,
  interpreters: { python3?: string; node: string },
  options: { callSeconds?: number },
): Promise<HarnessRun> {
  const tools = { harnessDir: HARNESS_DIR, python: interpreters.python3 ?? 'python3', node: interpreters.node };
  // The hidden tests move out of the code's folder, as the clean room keeps them apart.
  const judgeDir = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-judge-'));
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-scratch-'));
  try {
    await fs.rename(path.join(folder, HIDDEN_TESTS_DIR), path.join(judgeDir, HIDDEN_TESTS_DIR));
    const language = task.manifest.language;
    const [candidateProgram = '', ...candidateArgs] = candidateCommand(language, {
      ...tools,
      codeDir: folder,
      scratchDir: scratch,
    });
    const [judgeProgram = '', ...judgeArgs] = judgeCommand(language, {
      ...tools,
      testsDir: path.join(judgeDir, HIDDEN_TESTS_DIR),
      scratchDir: scratch,
    });
    const candidate = started(candidateProgram, candidateArgs, folder, true);
    const judge = started(
      judgeProgram,
      [...judgeArgs, ...(options.callSeconds ? [String(options.callSeconds)] : [])],
      judgeDir,
      true,
    );
    judge.pipes[WIRE_OUT_FD]!.pipe(candidate.pipes[WIRE_IN_FD]!);
    candidate.pipes[WIRE_OUT_FD]!.pipe(judge.pipes[WIRE_IN_FD]!);
    const nonce = randomBytes(16).toString('hex');
    judge.child.stdin?.end(`${nonce}\n`);
    candidate.child.stdin?.end();
    const timer = setTimeout(() => {
      judge.child.kill('SIGKILL');
      candidate.child.kill('SIGKILL');
    }, task.manifest.limits.test_timeout_seconds * 1000);
    const exitCode = await judge.closed.finally(() => clearTimeout(timer));
    candidate.child.kill('SIGKILL');
    await candidate.closed;
    return {
      exitCode,
      stdout: candidate.output.stdout(),
      stderr: judge.output.stderr() + candidate.output.stderr(),
      score: scoreHarnessRun(judge.output.report(), nonce, task.manifest.tests_total),
      report: judge.output.report(),
    };
  } finally {
    await fs.rm(judgeDir, { recursive: true, force: true });
    await fs.rm(scratch, { recursive: true, force: true });
  }
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
