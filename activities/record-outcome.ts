/**
 * Recording a delivery's outcome, its one writer: the row read from how the delivery ended, written
 * once (first write wins), with what the outcome changes beside it in the same transaction (a main
 * answer's judging and pairs, a pull item's state, a push agent's run of failures).
 */
import { Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ArenaSettings } from '../infra/config';
import {
  deadlineExceededMessage,
  EMPTY_RESPONSE,
  isBlankAnswer,
  statusForMissedDeadline,
  type DeliveryKind,
  type DeliveryStatus,
} from '../domain/deliveries';
import {
  endPushFailureRun,
  extendPushFailureRun,
  makePushAgentInactive,
} from '../infra/db/repositories/agent.repository';
import { pairNewAnswer } from '../infra/db/repositories/pair.repository';
import { judgingWindow } from '../domain/arena';
import { countAnswer } from '../infra/db/repositories/prompt.repository';
import {
  deliveryStatus,
  recordDeliveryOutcome,
  startJudging,
  type OutcomeRow,
} from '../infra/db/repositories/delivery.repository';
import { settleWork } from '../infra/db/repositories/work-item.repository';
import { deliveriesTotal, deliveryLatency, pushAgentsMadeInactive } from '../infra/metrics';
import type { DeliveryOutcome, Settlement } from '../workflows/contracts';
import type { ActivityDeps } from './deps';

export function outcomeActivities({ orm, arena }: Pick<ActivityDeps, 'orm' | 'arena'>) {
  return {
    /** Writes the outcome once (`where status = 'pending'`); a retry, or a second call, returns what is recorded. */
    async recordOutcome(input: {
      sessionId: number;
      kind: DeliveryKind;
      deadlineSeconds: number;
      settlement: Settlement;
    }): Promise<DeliveryOutcome> {
      const recorded = await orm.em.fork().transactional(async (em) => {
        const row = outcomeRow(input);
        // The returned error is the owner's version: it feeds ping_error and the logs, never the public.
        const updated = await recordDeliveryOutcome(em, input.sessionId, row);
        if (!updated) return { status: await deliveryStatus(em, input.sessionId), firstWrite: null };
        if (input.kind === 'main' && updated.status === 'answered') {
          await countAnswer(em, input.sessionId);
          // In the same transaction, so an answer is never public before it is in judging, nor judged unpaired.
          await startJudging(em, input.sessionId, arena.judgingDays);
          await pairNewAnswer(
            em,
            input.sessionId,
            arena.pairsPerAnswer,
            judgingWindow(arena.judgingWindowMinutes).marginSeconds,
          );
        }
        if (updated.mode === 'pull')
          await settleWork(em, input.sessionId, input.settlement.status === 'pulled' ? 'completed' : 'expired');
        const madeInactive =
          updated.mode !== 'pull'
            ? await trackPushFailures(em, arena, {
                agentId: updated.agent_id,
                status: updated.status,
                settlement: input.settlement,
                error: updated.error,
              })
            : false;
        return {
          status: updated.status,
          firstWrite: { mode: updated.mode, latencyMs: updated.latency_ms, madeInactive, error: updated.error },
        };
      });
      // Counted and logged once: only the call that wrote the outcome has a first write.
      const first = recorded.firstWrite;
      if (first) {
        // The activity logger adds the workflow and activity ids.
        const log = Context.current().log;
        const fields = {
          sessionId: input.sessionId,
          kind: input.kind,
          mode: first.mode,
          status: recorded.status,
          latencyMs: first.latencyMs,
        };
        logDeliveryEnd(log, fields, first.error);
        if (first.madeInactive)
          log.warn('push agent made inactive after repeated failures', { sessionId: input.sessionId });
        deliveriesTotal.inc({ kind: input.kind, mode: first.mode, outcome: recorded.status });
        if (recorded.status === 'answered')
          deliveryLatency.observe({ kind: input.kind, mode: first.mode }, first.latencyMs / 1000);
        if (first.madeInactive) pushAgentsMadeInactive.inc();
      }
      return { status: recorded.status };
    },
  };
}

/**
 * A pulled result's latency counts from the lease, which the write reads beside it (`receivedAt`);
 * a missed deadline keeps the last attempt's cause beside it.
 */
function outcomeRow(input: { kind: DeliveryKind; deadlineSeconds: number; settlement: Settlement }): OutcomeRow {
  const base = {
    receivedAt: null,
    response: null,
    error: null,
    errorDetail: null,
    agentLatencyMs: null,
    resultHash: null,
    keepLastAttempt: false,
  };
  const s = input.settlement;
  switch (s.status) {
    case 'answered':
      return { ...base, status: 'answered', response: s.response, latencyMs: s.latencyMs };
    case 'error':
      return { ...base, status: 'error', error: s.error, errorDetail: s.errorDetail ?? null, latencyMs: s.latencyMs };
    case 'pulled': {
      const common = {
        ...base,
        latencyMs: null,
        receivedAt: s.result.receivedAt,
        agentLatencyMs: s.result.agentLatencyMs,
        resultHash: s.result.resultHash,
      };
      if (s.result.response === null) return { ...common, status: 'error', error: s.result.error };
      return isBlankAnswer(s.result.response)
        ? { ...common, status: 'error', error: EMPTY_RESPONSE }
        : { ...common, status: 'answered', response: s.result.response };
    }
    case 'deadline':
      return {
        ...base,
        status: statusForMissedDeadline(input.kind),
        error: deadlineExceededMessage(input.deadlineSeconds),
        latencyMs: input.deadlineSeconds * 1000,
        keepLastAttempt: true,
      };
    case 'cancelled':
      return { ...base, status: 'cancelled', error: 'cancelled by the owner', latencyMs: 0 };
  }
}

/**
 * A delivery's end in the log, from the one call that wrote it: an error or a missed deadline
 * failed; anything else (an answer, a cancel, a scored coding session) was recorded. An agent's
 * failure is the agent's business, not a problem of the arena's: info, not warn.
 */
export function logDeliveryEnd(
  log: Pick<Context['log'], 'info'>,
  fields: { sessionId: number; kind: DeliveryKind; status: DeliveryStatus },
  error: string | null | undefined,
): void {
  if (fields.status === 'error' || fields.status === 'timeout') log.info('delivery failed', { ...fields, error });
  else log.info('delivery recorded', fields);
}

/*
 * Push agents whose deliveries keep failing: each recorded push outcome updates the agent's run of
 * failures, and a run long enough (ARENA_PUSH_FAILURE_LIMIT failures spanning at least
 * ARENA_PUSH_FAILURE_SPAN seconds) makes the agent inactive with a `ping_error` saying why. A good
 * answer, or a passing ping (retest), ends the run.
 */
/** Failures that are the agent's: errors it answered or caused, and missed deadlines. Cancels and our own faults are not. */
export function countsAsPushFailure(status: DeliveryStatus, settlement: Settlement): boolean {
  if (status !== 'error' && status !== 'timeout') return false;
  return !(settlement.status === 'error' && settlement.notAgentsFault);
}

export function inactiveReason(failures: number, spanSeconds: number, lastError: string | null): string {
  const span =
    spanSeconds >= 120 ? `${Math.round(spanSeconds / 60)} minutes` : `${Math.max(1, Math.ceil(spanSeconds))} s`;
  return `made inactive after ${failures} failed deliveries in a row over ${span} (last: ${lastError ?? 'unknown error'}); fix the webhook, then retest`;
}

/** Runs inside recordOutcome's transaction. Returns true when this outcome made the agent inactive. */
async function trackPushFailures(
  em: EntityManager,
  arena: Pick<ArenaSettings, 'pushFailureLimit' | 'pushFailureSpanSeconds'>,
  outcome: { agentId: number; status: DeliveryStatus; settlement: Settlement; error: string | null },
): Promise<boolean> {
  if (outcome.status === 'answered') {
    await endPushFailureRun(em, outcome.agentId);
    return false;
  }
  if (!countsAsPushFailure(outcome.status, outcome.settlement)) return false;
  const agent = await extendPushFailureRun(em, outcome.agentId);
  if (!agent || !agent.ping_ok || agent.deactivated) return false;
  if (agent.failures < arena.pushFailureLimit || agent.span_seconds < arena.pushFailureSpanSeconds) return false;
  await makePushAgentInactive(em, outcome.agentId, inactiveReason(agent.failures, agent.span_seconds, outcome.error));
  return true;
}
