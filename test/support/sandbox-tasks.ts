/**
 * A coding task's hidden tests run the way scoring runs them, minus the isolation: the starting files
 * (and optionally the reference solution) in a fresh folder, the hidden tests under `.hidden-tests/`,
 * the test command in the folder's root. A test swaps `runTaskTests` for an isolated runner as it likes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HIDDEN_TESTS_DIR, type SandboxTask } from '../../infra/sandbox/task-catalogue';

export interface TestCommandRun {
  /** Null when the command was killed (its time limit) or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export type RunTaskTests = (task: SandboxTask, options: { solution: boolean }) => Promise<TestCommandRun>;

/** The workspace as scoring sees it: the hidden tests replace anything already under `.hidden-tests/`. */
export async function prepareWorkspace(task: SandboxTask, workspace: string, solution: boolean): Promise<void> {
  await fs.cp(task.paths.files, workspace, { recursive: true });
  if (solution) await fs.cp(task.paths.solution, workspace, { recursive: true, force: true });
  const hidden = path.join(workspace, HIDDEN_TESTS_DIR);
  await fs.rm(hidden, { recursive: true, force: true });
  await fs.cp(task.paths.tests, hidden, { recursive: true });
}

/** The test command with a bare environment, as in a sandbox: nothing of this process's variables leaks in. */
export function runTestCommand(task: SandboxTask, workspace: string): Promise<TestCommandRun> {
  const [program = '', ...args] = task.manifest.test_command;
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace, LANG: 'C.UTF-8' };
  return new Promise((resolve) => {
    execFile(
      program,
      args,
      { cwd: workspace, env, timeout: task.manifest.limits.test_timeout_seconds * 1000, maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = (error as NodeJS.ErrnoException | null)?.code;
        resolve({ exitCode: error ? (typeof code === 'number' ? code : null) : 0, stdout, stderr });
      },
    );
  });
}

/** Plain child processes in a temporary folder, removed afterwards. */
export const runTaskTestsPlainly: RunTaskTests = async (task, { solution }) => {
  const workspace = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-task-'));
  try {
    await prepareWorkspace(task, workspace, solution);
    return await runTestCommand(task, workspace);
  } finally {
    await fs.rm(workspace, { recursive: true, force: true });
  }
};
