/** Activities of deliverPrompt: the push POST (at most once), queueing pull work, and recording the outcome once. */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { openSecret } from '../domain/credentials';
import { interpretPushResponse } from '../domain/push-response';
import { publicFailureMessage } from '../infra/webhook/failure';
import {
  deadlineExceededMessage,
  EMPTY_RESPONSE,
  isBlankAnswer,
  sessionPublicId,
  statusForMissedDeadline,
  type SessionKind,
  type SessionStatus,
} from '../domain/sessions';
import { WORK_CHANNEL } from '../infra/db/work-channel';
import type { AgentMode } from '../domain/agent-state';
import { deliveriesTotal, deliveryLatency, pushAgentsMadeInactive } from '../infra/metrics';
import { trackPushFailures } from './push-failures';
import type { Settlement } from '../workflows/deliver-prompt';
import type { ActivityDeps } from '.';

/** How often the push activity heartbeats; the workflow's heartbeat timeout is a few times this. */
export const HEARTBEAT_EVERY_MS = 2_000;

interface ClaimedPush {
  id: number;
  kind: SessionKind;
  category: string;
  deadline_seconds: number;
  prompt_id: number;
  text: string;
  webhook_url: string | null;
  secret_sealed: string;
  deactivated: boolean;
  redelivery_of_id: number | null;
}

export function deliveryActivities({ orm, webhooks, encryptionKey, arena }: ActivityDeps) {
  const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
    orm.em.getConnection().execute<T[]>(query, params);

  return {
    /**
     * Sends one push prompt. The session is marked `sending` before the request goes out, so a
     * retried attempt after a crash never sends it twice; only a request that provably never left
     * is released again and retried (by throwing a retryable failure).
     */
    async pushPrompt({ sessionId, deadlineAt }: { sessionId: number; deadlineAt: number }): Promise<Settlement> {
      const [claimed] = await sql<ClaimedPush>(
        `update sessions s set push_state = 'sending', sent_at = now()
         from agents a, prompts p
         where s.id = ? and s.status = 'pending' and s.push_state is null and a.id = s.agent_id and p.id = s.prompt_id
         returning s.id, s.kind, s.category, s.deadline_seconds, p.id as prompt_id, p.text, a.webhook_url, a.secret_sealed, a.deactivated,
           s.redelivery_of_id`,
        [sessionId],
      );
      if (!claimed) {
        return {
          status: 'error',
          error: 'delivery interrupted after the request may have reached the agent; it is not sent twice',
          latencyMs: 0,
          notAgentsFault: true,
        };
      }
      if (claimed.deactivated || !claimed.webhook_url) {
        return { status: 'error', error: 'agent is deactivated or has no webhook_url; nothing was sent', latencyMs: 0, notAgentsFault: true };
      }
      const body = JSON.stringify({
        prompt_id: claimed.prompt_id,
        prompt: claimed.text,
        category: claimed.category,
        deadline_seconds: claimed.deadline_seconds,
      });
      const context = Context.current();
      // Heartbeats let Temporal notice a dead worker (the retry then records the interruption) and
      // carry a cancellation (the deadline, an owner's cancel) to the open request.
      const beat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      const result = await webhooks
        .post({
          url: claimed.webhook_url,
          body,
          secret: openSecret(claimed.secret_sealed, encryptionKey),
          // A redelivery carries the original's id, so an agent that de-duplicates by it sees the same delivery.
          deliveryId: sessionPublicId(claimed.kind, claimed.redelivery_of_id ?? claimed.id),
          timeoutMs: Math.max(1, deadlineAt - Date.now()),
          signal: context.cancellationSignal,
        })
        .finally(() => clearInterval(beat));
      if (result.kind === 'failure' && context.cancellationDetails?.workerShutdown && !result.neverSent) {
        // This worker is stopping mid-request: fail the attempt, and the retry on another worker
        // records the interruption without sending again.
        throw ApplicationFailure.retryable('the worker stopped while the request was open', 'WorkerShutdown');
      }
      if (result.kind === 'failure') {
        if (result.neverSent) {
          // Nothing reached the agent: release the claim and let Temporal try again within the deadline.
          await sql(`update sessions set push_state = null, sent_at = null, error = ?, error_detail = ? where id = ? and status = 'pending'`, [
            publicFailureMessage(result.stage),
            result.message,
            sessionId,
          ]);
          throw ApplicationFailure.retryable(result.message, 'WebhookNeverSent');
        }
        // The request's timeout is the delivery deadline, so timing out is missing the deadline.
        if (result.stage === 'timeout') return { status: 'deadline' };
        return {
          status: 'error',
          error: publicFailureMessage(result.stage),
          errorDetail: result.message,
          latencyMs: Math.max(0, Date.now() - (result.sentAt ?? Date.now())),
        };
      }
      const latencyMs = Math.max(0, Math.round(result.receivedAt - result.sentAt));
      const answer = interpretPushResponse(result.status, result.body);
      return answer.ok ? { status: 'answered', response: answer.response, latencyMs } : { status: 'error', error: answer.error, latencyMs };
    },

    /** Queues a pull delivery and wakes the agent's waiting long-polls, in any API process. */
    async queueWork({ sessionId }: { sessionId: number }): Promise<void> {
      await sql(
        `with queued as (
           insert into work_items (session_id, agent_id, state, created_at)
           select id, agent_id, 'queued', now() from sessions where id = ?
           on conflict (session_id) do nothing
           returning agent_id)
         select pg_notify(?, agent_id::text) from queued`,
        [sessionId, WORK_CHANNEL],
      );
    },

    /** Writes the outcome once (`where status = 'pending'`); a retry, or a second call, returns what is recorded. */
    async recordOutcome(input: { sessionId: number; kind: SessionKind; deadlineSeconds: number; settlement: Settlement }): Promise<{ status: SessionStatus }> {
      const recorded = await orm.em.fork().transactional(async (em) => {
        const conn = em.getConnection();
        const run = <T>(q: string, p: unknown[]) => conn.execute<T[]>(q, p, 'all', em.getTransactionContext());
        const [work] = await run<{ leased_ms: number | null }>(
          `select (extract(epoch from leased_at) * 1000)::float8 as leased_ms from work_items where session_id = ?`,
          [input.sessionId],
        );
        const row = outcomeRow(input, work?.leased_ms ?? null);
        // The returned error is the owner's version: it feeds ping_error and the logs, never the public.
        const [updated] = await run<{ status: SessionStatus; mode: AgentMode; agent_id: number; error: string | null }>(
          `update sessions set status = ?, response = ?, latency_ms = ?, agent_latency_ms = ?, result_hash = ?, completed_at = now(),
             error = case when ? and error is not null then ? || '; last attempt: ' || error else ? end,
             error_detail = case when ? and error is not null then ? || '; last attempt: ' || coalesce(error_detail, error) else ? end
           where id = ? and status = 'pending' returning status, mode, agent_id, coalesce(error_detail, error) as error`,
          [
            row.status, row.response, row.latencyMs, row.agentLatencyMs, row.resultHash,
            row.keepLastAttempt, row.error, row.error,
            row.keepLastAttempt, row.error, row.errorDetail,
            input.sessionId,
          ],
        );
        if (!updated) {
          const [existing] = await run<{ status: SessionStatus }>(`select status from sessions where id = ?`, [input.sessionId]);
          return { status: existing.status, firstWrite: null };
        }
        if (input.kind === 'main' && updated.status === 'answered') {
          await run(`update prompts set answer_count = answer_count + 1 where id = (select prompt_id from sessions where id = ?)`, [input.sessionId]);
        }
        await run(`update work_items set state = ? where session_id = ? and state in ('queued', 'leased')`, [
          input.settlement.status === 'pulled' ? 'completed' : 'expired',
          input.sessionId,
        ]);
        const madeInactive =
          updated.mode === 'push' ? await trackPushFailures(run, arena, { agentId: updated.agent_id, status: updated.status, settlement: input.settlement, error: updated.error }) : false;
        return { status: updated.status, firstWrite: { mode: updated.mode, latencyMs: row.latencyMs, madeInactive, error: updated.error } };
      });
      // Counted and logged once: only the call that wrote the outcome has a first write.
      const first = recorded.firstWrite;
      if (first) {
        // The activity logger adds the workflow and activity ids.
        const log = Context.current().log;
        const fields = { sessionId: input.sessionId, kind: input.kind, mode: first.mode, status: recorded.status, latencyMs: first.latencyMs };
        // An agent's failure is the agent's business, not a problem of the arena's: info, not warn.
        if (recorded.status === 'answered' || recorded.status === 'cancelled') log.info('delivery recorded', fields);
        else log.info('delivery failed', { ...fields, error: first.error });
        if (first.madeInactive) log.warn('push agent made inactive after repeated failures', { sessionId: input.sessionId });
        deliveriesTotal.inc({ kind: input.kind, mode: first.mode, outcome: recorded.status });
        if (recorded.status === 'answered') deliveryLatency.observe({ kind: input.kind, mode: first.mode }, first.latencyMs / 1000);
        if (first.madeInactive) pushAgentsMadeInactive.inc();
      }
      return { status: recorded.status };
    },
  };
}

interface OutcomeRow {
  status: SessionStatus;
  response: string | null;
  error: string | null;
  /** Only where the owner's version differs from the public one. */
  errorDetail: string | null;
  latencyMs: number;
  agentLatencyMs: number | null;
  resultHash: string | null;
  /** A missed deadline after never-sent attempts keeps the last attempt's cause in the message. */
  keepLastAttempt: boolean;
}

function outcomeRow(input: { kind: SessionKind; deadlineSeconds: number; settlement: Settlement }, leasedAtMs: number | null): OutcomeRow {
  const base = { response: null, error: null, errorDetail: null, agentLatencyMs: null, resultHash: null, keepLastAttempt: false };
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
