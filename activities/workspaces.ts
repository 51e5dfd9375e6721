/**
 * Activities of a coding session that run on the worker holding its workspace (that worker's own
 * task queue): a step (exec, read, write), the hidden tests, and removing the workspace. Every
 * command runs isolated; a step's own failure (a bad path, a command that fails) is its result.
 */
import { Context } from '@temporalio/activity';
import type { MikroORM } from '@mikro-orm/postgresql';
import { testReportOf } from '../domain/sandbox/test-report';
import type { SandboxLanguage } from '../domain/sandbox/languages';
import { findCodingStep, recordCodingStep } from '../infra/db/repositories/coding.repository';
import { findCodingTask } from '../infra/db/repositories/coding-task.repository';
import { HIDDEN_TESTS_DIR } from '../infra/sandbox/task-catalogue';
import type { SandboxRuntime } from '../infra/sandbox/runtime';
import { codingStepLatency } from '../infra/metrics';

export interface WorkspaceDeps {
  orm: MikroORM;
  sandbox: SandboxRuntime;
}

const HEARTBEAT_EVERY_MS = 2_000;

/** Runs `work` while heartbeating, so Temporal notices a worker that died during a long step. */
async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}

export function createWorkspaceActivities({ orm, sandbox }: WorkspaceDeps) {
  return {
    /** Runs one step from its row and writes its result there; a step already recorded is not run again. */
    async runStep({ sessionId, stepId, n }: { sessionId: number; stepId: number; n: number }): Promise<void> {
      const step = await findCodingStep(orm.em, stepId);
      if (!step || step.session_id !== sessionId)
        throw new Error(`coding step ${stepId} of session ${sessionId} not found`);
      if (step.n !== null) return;
      const started = performance.now();
      const result = await heartbeating(() => sandbox.runStep(sessionId, step.kind, step.request));
      const durationMs = Math.round(performance.now() - started);
      codingStepLatency.observe({ kind: step.kind }, durationMs / 1000);
      await recordCodingStep(orm.em, { stepId, sessionId, n, result, durationMs });
    },

    /** Copies the hidden tests in (over anything the agent left there), runs them, and reads the score. */
    async scoreWorkspace({ sessionId, taskId }: { sessionId: number; taskId: string }): Promise<{
      passed: number;
      total: number;
    }> {
      const task = await findCodingTask(orm.em, taskId);
      if (!task) throw new Error(`coding task ${taskId} not found`);
      const run = await heartbeating(() =>
        sandbox.runHiddenTests(sessionId, {
          dir: HIDDEN_TESTS_DIR,
          files: task.hidden_tests,
          command: task.manifest.test_command,
          timeoutSeconds: task.manifest.limits.test_timeout_seconds,
        }),
      );
      return testReportOf(
        task.language as SandboxLanguage,
        run.exit_code,
        run.stdout,
        run.stderr,
        task.manifest.tests_total,
      );
    },

    async removeWorkspace({ sessionId }: { sessionId: number }): Promise<void> {
      await sandbox.remove(sessionId);
    },
  };
}
