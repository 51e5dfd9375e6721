/** Activities of a coding session on the shared queue: preparing its workspace on this worker, its summary and its end. */
import { Context } from '@temporalio/activity';
import {
  codingSummaryOf,
  endCodingSession,
  findCodingSession,
  openCodingSessionRows,
  markWorkspaceReady,
  recordCodingSummary,
} from '../infra/db/repositories/coding.repository';
import { codingStepsOf, trimCodingSteps } from '../infra/db/repositories/coding-step.repository';
import { finishBenchmarkRun } from '../infra/db/repositories/benchmark-run.repository';
import { findCodingTask, isTaskActive } from '../infra/db/repositories/coding-task.repository';
import { hashToken, sessionToken } from '../domain/credentials';
import { UNCOMPARED } from '../domain/sandbox/harness-report';
import { codingTranscript } from '../domain/sandbox/transcript';
import { codingArenaFaultsTotal, codingSessionsTotal } from '../infra/metrics';
import type { DeliveryStatus } from '../domain/deliveries';
import { isAgentActive } from '../domain/agent-state';
import { Agent } from '../infra/db/entities/agent.entity';
import { uidRangeOf } from '../infra/sandbox/settings';
import { deliveryInputOf, type CodingSessionInput, type DeliveryOutcome } from '../workflows/contracts';
import type { ActivityDeps } from './deps';
import { logDeliveryEnd } from './record-outcome';

/** Why a session could not start when every uid of the range is held by a live session. */
export const noFreeUid = (sessionUids: number) =>
  `the sandbox has no free user for another session (all ${sessionUids} are in use); try again later`;

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
    }): Promise<{ ok: true; taskQueue: string; pickupSeconds?: number } | { ok: false; reason: string }> {
      const isolation = await sandbox.check();
      if (!isolation.ok) return { ok: false, reason: isolation.reason };
      const [task, session] = await Promise.all([findCodingTask(orm.em, taskId), findCodingSession(orm.em, sessionId)]);
      if (!task || !session) return { ok: false, reason: `coding task ${taskId} is not in the catalogue` };
      // A uid no other live session holds: its process limit and its files are the session's own.
      const uid = await sandbox.leaseUid(orm.em, sessionId);
      if (uid === undefined) return { ok: false, reason: noFreeUid(uidRangeOf(sandbox.settings).sessions) };
      await sandbox.prepare(sessionId, uid, task.files);
      await markWorkspaceReady(orm.em, sessionId, {
        queue: sandbox.taskQueue,
        tokenHash: hashToken(sessionToken(encryptionKey, sessionId, session.token_nonce)),
      });
      return { ok: true, taskQueue: sandbox.taskQueue, pickupSeconds: sandbox.settings.pickupSeconds };
    },

    /**
     * Opens the next session of a benchmark run, if the account's cap of live sessions lets it:
     * `full` when it does not, `skipped` for a task retired since the run began, `stopped` when the
     * agent can take no session any more (deactivated, or its webhook failing).
     */
    async openBenchmarkSession(input: {
      runId: number;
      agentId: number;
      taskId: string;
      deadlineSeconds: number;
      maxSteps: number;
      sessionsPerAccount: number;
    }): Promise<
      | { kind: 'opened'; session: CodingSessionInput }
      | { kind: 'full' }
      | { kind: 'skipped' }
      | { kind: 'stopped'; reason: string }
    > {
      const em = orm.em.fork();
      const agent = await em.findOne(Agent, input.agentId);
      if (!agent || agent.deactivated) return { kind: 'stopped', reason: 'the agent was deactivated' };
      if (!isAgentActive(agent)) return { kind: 'stopped', reason: `the agent is not active (${agent.pingError})` };
      const task = await findCodingTask(em, input.taskId);
      if (!task || !(await isTaskActive(em, input.taskId))) return { kind: 'skipped' };
      const written = await openCodingSessionRows(em, {
        agent: { id: agent.id, ownerId: agent.owner.id, mode: agent.mode },
        task,
        deadlineSeconds: input.deadlineSeconds,
        maxSteps: input.maxSteps,
        benchmarkRunId: input.runId,
        sessionsPerAccount: input.sessionsPerAccount,
      });
      if (written === undefined) return { kind: 'full' };
      return { kind: 'opened', session: { ...deliveryInputOf(written), taskId: task.id, maxSteps: input.maxSteps } };
    },

    /** One batch of the coding steps' retention: how many rows it cut back (or removed). */
    async trimCodingSteps({ days, batch }: { days: number; batch: number }): Promise<number> {
      return trimCodingSteps(orm.em.fork(), days, batch);
    },

    async finishBenchmarkRun({ runId }: { runId: number }): Promise<void> {
      await finishBenchmarkRun(orm.em, runId);
    },

    async recordCodingSummary({ sessionId, summary }: { sessionId: number; summary: string }): Promise<void> {
      await recordCodingSummary(orm.em, sessionId, summary);
    },

    /** Ends the session once; a retry, or a second call, answers what is recorded. */
    async recordCodingOutcome(input: {
      sessionId: number;
      status: DeliveryStatus;
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
      /** Values the judge could not compare: the owner's version of the error (they name the code's classes). */
      uncompared?: string[];
    }): Promise<DeliveryOutcome> {
      const [summary, steps] = await Promise.all([
        codingSummaryOf(orm.em, input.sessionId),
        codingStepsOf(orm.em, input.sessionId),
      ]);
      const { uncompared, ...score } = input;
      // The public sentence in the feed; the names of the code's classes only in the owner's version.
      const compared = uncompared?.length
        ? { error: score.error ?? UNCOMPARED, errorDetail: uncompared.join('; ') }
        : {};
      const response = codingTranscript(
        summary,
        steps.map((s) => ({ ...s, n: s.n ?? 0 })),
        { ...score, uncompared: Boolean(uncompared?.length) },
      );
      const { status, wrote } = await endCodingSession(orm.em, input.sessionId, { ...score, ...compared, response });
      // Counted and logged once, like every delivery: only the call that wrote the outcome.
      if (wrote) {
        codingSessionsTotal.inc({ status });
        if (status === 'error' && input.notAgentsFault === true) codingArenaFaultsTotal.inc();
        logDeliveryEnd(Context.current().log, { sessionId: input.sessionId, kind: 'sandbox', status }, input.error);
      }
      return { status };
    },
  };
}
