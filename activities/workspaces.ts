/**
 * Activities of a coding session that run on the worker holding its workspace. Steps (exec, read,
 * write) come on that worker's own task queue; ending the session (stopping everything of it, scoring
 * it in a clean room, removing the workspace) comes on a queue beside it, so scoring never waits behind
 * agents' steps. Every command runs isolated; a step's own failure (a bad path, a command that fails)
 * is its result.
 */
import { heartbeating } from './heartbeat';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { SandboxLanguage } from '../domain/sandbox/languages';
import {
  findCodingStep,
  markCodingStepStarted,
  recordCodingStep,
} from '../infra/db/repositories/coding-step.repository';
import { findCodingTask } from '../infra/db/repositories/coding-task.repository';
import { findCodingSession, recordTamperDetail } from '../infra/db/repositories/coding.repository';
import type { SandboxRuntime } from '../infra/sandbox/runtime';
import { codingStepLatency } from '../infra/metrics';
import type { CodingRun } from '../workflows/contracts';

export interface WorkspaceDeps {
  orm: MikroORM;
  sandbox: SandboxRuntime;
}

const HEARTBEAT_EVERY_MS = 2_000;

/** The activities of a worker's step queue. */
export function createWorkspaceActivities({ orm, sandbox }: WorkspaceDeps) {
  return {
    /**
     * Runs one step from its row and writes its result there; a step already recorded is not run again.
     * A command stops at the session's deadline (`deadlineAt`, epoch ms) at the latest.
     */
    async runStep({
      sessionId,
      stepId,
      n,
      deadlineAt,
    }: {
      sessionId: number;
      stepId: number;
      n: number;
      deadlineAt?: number;
    }): Promise<void> {
      const step = await findCodingStep(orm.em, stepId);
      if (!step || step.session_id !== sessionId)
        throw new Error(`coding step ${stepId} of session ${sessionId} not found`);
      if (step.n !== null) return;
      // From here the step runs, no longer queued behind an earlier one: a client's progress says so.
      await markCodingStepStarted(orm.em, stepId);
      const started = performance.now();
      const result = await heartbeating(
        () => sandbox.runStep(sessionId, step.kind, step.request, deadlineAt, stepId),
        HEARTBEAT_EVERY_MS,
      );
      const durationMs = Math.round(performance.now() - started);
      codingStepLatency.observe({ kind: step.kind }, durationMs / 1000);
      await recordCodingStep(orm.em, { stepId, sessionId, n, result, durationMs });
    },
  };
}

/** The activities of a worker's control queue: the end of its sessions. */
export function createCodingSessionEndActivities({ orm, sandbox }: WorkspaceDeps) {
  return {
    /** Answers at once: the worker is alive (its step queue may just be full). */
    async stillThere(): Promise<void> {},

    /**
     * Stops step `stepId`'s command if the session runs it now: the client that asked for it
     * cancelled the call. The step ends and is recorded as any other, marked cancelled.
     */
    async cancelStep({ sessionId, stepId }: { sessionId: number; stepId: number }): Promise<boolean> {
      return sandbox.cancelStep(sessionId, stepId);
    },

    /** Stops everything of the session: no step starts a command any more, and no process of its uid is left. */
    async stopSession({ sessionId }: { sessionId: number }): Promise<void> {
      await heartbeating(() => sandbox.stop(sessionId), HEARTBEAT_EVERY_MS);
    },

    /** Stops the session (again: nothing may run beside the tests) and scores it in a clean room. */
    async scoreCleanRoom({ sessionId, taskId }: { sessionId: number; taskId: string }): Promise<CodingRun> {
      const task = await findCodingTask(orm.em, taskId);
      if (!task) throw new Error(`coding task ${taskId} not found`);
      const session = await findCodingSession(orm.em, sessionId);
      if (!session) throw new Error(`coding session ${sessionId} not found`);
      const score = await heartbeating(
        () =>
          sandbox.score(
            sessionId,
            {
              language: task.language as SandboxLanguage,
              files: task.files,
              hiddenTests: task.hidden_tests,
              testsTotal: task.manifest.tests_total,
              timeoutSeconds: task.manifest.limits.test_timeout_seconds,
            },
            session.owner_id,
          ),
        HEARTBEAT_EVERY_MS,
      );
      // Only operators read what the judge saw: the feed gets the arena's own sentence.
      if (score.tamperedDetail) await recordTamperDetail(orm.em, sessionId, score.tamperedDetail);
      return {
        passed: score.passed,
        total: score.total,
        ...(score.tampered ? { tampered: score.tampered } : {}),
        ...(score.unread ? { unread: score.unread } : {}),
        ...(score.uncompared ? { uncompared: score.uncompared } : {}),
        ...(score.leftOut.length > 0 ? { leftOut: score.leftOut.slice(0, 20).map((name) => name.slice(0, 200)) } : {}),
      };
    },

    /** Removes the workspace (and any clean room), and gives the session's uid back to the range. */
    async removeWorkspace({ sessionId }: { sessionId: number }): Promise<void> {
      await sandbox.remove(sessionId);
      await sandbox.releaseUid(orm.em, sessionId);
    },
  };
}
