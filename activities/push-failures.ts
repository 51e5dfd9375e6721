/**
 * Push agents whose deliveries keep failing: each recorded push outcome updates the agent's run of
 * failures, and a run long enough (ARENA_PUSH_FAILURE_LIMIT failures spanning at least
 * ARENA_PUSH_FAILURE_SPAN seconds) makes the agent inactive with a `ping_error` saying why. A good
 * answer, or a passing ping (retest), ends the run.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ArenaSettings } from '../infra/config';
import {
  endPushFailureRun,
  extendPushFailureRun,
  makePushAgentInactive,
} from '../infra/db/repositories/agent.repository';
import type { SessionStatus } from '../domain/sessions';
import type { Settlement } from '../workflows/contracts';

/** Failures that are the agent's: errors it answered or caused, and missed deadlines. Cancels and our own faults are not. */
export function countsAsPushFailure(status: SessionStatus, settlement: Settlement): boolean {
  if (status !== 'error' && status !== 'timeout') return false;
  return !(settlement.status === 'error' && settlement.notAgentsFault);
}

export function inactiveReason(failures: number, spanSeconds: number, lastError: string | null): string {
  const span =
    spanSeconds >= 120 ? `${Math.round(spanSeconds / 60)} minutes` : `${Math.max(1, Math.ceil(spanSeconds))} s`;
  return `made inactive after ${failures} failed deliveries in a row over ${span} (last: ${lastError ?? 'unknown error'}); fix the webhook, then retest`;
}

/** Runs inside recordOutcome's transaction. Returns true when this outcome made the agent inactive. */
export async function trackPushFailures(
  em: EntityManager,
  arena: Pick<ArenaSettings, 'pushFailureLimit' | 'pushFailureSpanSeconds'>,
  outcome: { agentId: number; status: SessionStatus; settlement: Settlement; error: string | null },
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
