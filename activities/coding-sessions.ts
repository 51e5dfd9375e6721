/** Activities of a coding session on the shared queue: preparing its workspace on this worker, its summary and its end. */
import {
  codingStepsOf,
  codingSummaryOf,
  endCodingSession,
  findCodingSession,
  leaseSandboxUid,
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

/** Why a session could not start when every uid of the range is held by a live session. */
export const noFreeUid = (uidCount: number) =>
  `the sandbox has no free user for another session (all ${uidCount - 1} are in use); try again later`;

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
      // A uid no other live session holds: its process limit and its files are the session's own.
      const uid = await leaseSandboxUid(orm.em, sessionId, sandbox.settings);
      if (uid === undefined) return { ok: false, reason: noFreeUid(sandbox.settings.uidCount) };
      await sandbox.prepare(sessionId, uid, task.files);
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
      /** The run was tampered with (it scored 0): why. */
      tampered?: string;
      /** Why the run gave no score the arena believes, when it gave none. */
      scoreNote?: string;
      /** The agent's files not carried into the clean room. */
      leftOut?: string[];
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
