/** The row a delivery's outcome is written as, from how it ended (pure: the one reading of a settlement). */
import {
  deadlineExceededMessage,
  EMPTY_RESPONSE,
  isBlankAnswer,
  statusForMissedDeadline,
  type SessionKind,
} from '../domain/sessions';
import type { OutcomeRow } from '../infra/db/repositories/session.repository';
import type { Settlement } from '../workflows/contracts';

/**
 * A pulled result's latency counts from the lease (`leasedAtMs`, null when the item was never
 * leased); a missed deadline keeps the last attempt's cause beside it.
 */
export function outcomeRow(
  input: { kind: SessionKind; deadlineSeconds: number; settlement: Settlement },
  leasedAtMs: number | null,
): OutcomeRow {
  const base = {
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
      const latencyMs = leasedAtMs === null ? 0 : Math.max(0, Math.round(s.result.receivedAt - leasedAtMs));
      const common = { ...base, latencyMs, agentLatencyMs: s.result.agentLatencyMs, resultHash: s.result.resultHash };
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
