/**
 * Push agents whose deliveries keep failing: each recorded push outcome updates the agent's run of
 * failures, and a run long enough (ARENA_PUSH_FAILURE_LIMIT failures spanning at least
 * ARENA_PUSH_FAILURE_SPAN seconds) makes the agent inactive with a `ping_error` saying why. A good
 * answer, or a passing ping (retest), ends the run.
 */
import type { ArenaSettings } from '../infra/config';
import type { SessionStatus } from '../domain/sessions';
import type { Settlement } from '../workflows/deliver-prompt';

type Run = <T>(query: string, params: unknown[]) => Promise<T[]>;

/** Failures that are the agent's: errors it answered or caused, and missed deadlines. Cancels and our own faults are not. */
export function countsAsPushFailure(status: SessionStatus, settlement: Settlement): boolean {
  if (status !== 'error' && status !== 'timeout') return false;
  return !(settlement.status === 'error' && settlement.notAgentsFault);
}

export function inactiveReason(failures: number, spanSeconds: number, lastError: string | null): string {
  const span = spanSeconds >= 120 ? `${Math.round(spanSeconds / 60)} minutes` : `${Math.max(1, Math.ceil(spanSeconds))} s`;
  return `made inactive after ${failures} failed deliveries in a row over ${span} (last: ${lastError ?? 'unknown error'}); fix the webhook, then retest`;
}

/** Runs inside recordOutcome's transaction. Returns true when this outcome made the agent inactive. */
export async function trackPushFailures(
  run: Run,
  arena: Pick<ArenaSettings, 'pushFailureLimit' | 'pushFailureSpanSeconds'>,
  outcome: { agentId: number; status: SessionStatus; settlement: Settlement; error: string | null },
): Promise<boolean> {
  if (outcome.status === 'answered') {
    await run(`update agents set consecutive_failures = 0, failing_since = null where id = ? and consecutive_failures > 0`, [outcome.agentId]);
    return false;
  }
  if (!countsAsPushFailure(outcome.status, outcome.settlement)) return false;
  const [agent] = await run<{ failures: number; span_seconds: number; ping_ok: boolean; deactivated: boolean }>(
    `update agents set consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, now())
     where id = ?
     returning consecutive_failures as failures, extract(epoch from now() - failing_since)::float8 as span_seconds, ping_ok, deactivated`,
    [outcome.agentId],
  );
  if (!agent || !agent.ping_ok || agent.deactivated) return false;
  if (agent.failures < arena.pushFailureLimit || agent.span_seconds < arena.pushFailureSpanSeconds) return false;
  await run(`update agents set ping_ok = false, ping_error = ? where id = ?`, [inactiveReason(agent.failures, agent.span_seconds, outcome.error), outcome.agentId]);
  return true;
}
