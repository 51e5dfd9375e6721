/** Activities of a coding session on the shared queue: preparing its workspace on this worker, its summary and its end. */
import {
  codingStepsOf,
  codingSummaryOf,
  endCodingSession,
  findCodingSession,
  markWorkspaceReady,
  recordCodingSummary,
} from '../infra/db/repositories/coding.repository';
import { findCodingTask } from '../infra/db/repositories/coding-task.repository';
import { hashToken, sessionToken } from '../domain/credentials';
import { codingTranscript } from '../domain/sandbox/transcript';
import { codingSessionsTotal } from '../infra/metrics';
import type { SessionStatus } from '../domain/sessions';
import type { DeliveryOutcome } from '../workflows/contracts';
import type { ActivityDeps } from '.';

export function codingSessionActivities({ orm, sandbox, encryptionKey }: ActivityDeps) {
  return {
    /**
     * Prepares the session's workspace on this worker and answers this worker's own task queue, where
     * every later step runs. Where isolation is unavailable nothing is prepared: the reason comes back.
     */
    async prepareCodingWorkspace({
      sessionId,
      taskId,
    }: {
      sessionId: number;
      taskId: string;
    }): Promise<{ ok: true; taskQueue: string } | { ok: false; reason: string }> {
      const isolation = await sandbox.check();
      if (!isolation.ok) return { ok: false, reason: isolation.reason };
      const [task, session] = await Promise.all([findCodingTask(orm.em, taskId), findCodingSession(orm.em, sessionId)]);
      if (!task || !session) return { ok: false, reason: `coding task ${taskId} is not in the catalogue` };
      await sandbox.prepare(sessionId, task.files);
      await markWorkspaceReady(orm.em, sessionId, {
        queue: sandbox.taskQueue,
        tokenHash: hashToken(sessionToken(encryptionKey, sessionId, session.token_nonce)),
      });
      return { ok: true, taskQueue: sandbox.taskQueue };
    },

    async recordCodingSummary({ sessionId, summary }: { sessionId: number; summary: string }): Promise<void> {
      await recordCodingSummary(orm.em, sessionId, summary);
    },

    /** Ends the session once; a retry, or a second call, answers what is recorded. */
    async recordCodingOutcome(input: {
      sessionId: number;
      status: SessionStatus;
      error?: string;
      notAgentsFault?: boolean;
      testsPassed?: number;
      testsTotal?: number;
    }): Promise<DeliveryOutcome> {
      const [summary, steps] = await Promise.all([
        codingSummaryOf(orm.em, input.sessionId),
        codingStepsOf(orm.em, input.sessionId),
      ]);
      const response = codingTranscript(
        summary,
        steps.map((s) => ({ ...s, n: s.n ?? 0 })),
        input,
      );
      const status = await endCodingSession(orm.em, input.sessionId, { ...input, response });
      if (status === input.status) codingSessionsTotal.inc({ status });
      return { status };
    },
  };
}
