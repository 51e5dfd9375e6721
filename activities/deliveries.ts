/**
 * Activities of deliverPrompt that reach the agent: the push POST (at most once, recorded by the same
 * activity through `recordOutcome`), and queueing and expiring pull work.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { openSecret } from '../domain/credentials';
import { publicFailureMessage } from '../infra/webhook/failure';
import { interpretPushResponse, promptPayload } from '../domain/delivery-payload';
import { isCodingSession, deliveryPublicId, type DeliveryKind } from '../domain/deliveries';
import { findCodingSession } from '../infra/db/repositories/coding.repository';
import { claimPush, releasePush } from '../infra/db/repositories/delivery.repository';
import { closeUnleasedWork, deleteSettledWork, queueWorkItem } from '../infra/db/repositories/work-item.repository';
import { sandboxPayload } from '../domain/sandbox/payload';
import { outcomeActivities } from './record-outcome';
import type { PushOutcome, Settlement } from '../workflows/contracts';
import type { ActivityDeps } from './deps';
import { a2aDeliveryActivities } from './a2a-delivery';
import { ARRIVAL_GRACE_MS, HEARTBEAT_EVERY_MS } from './send-timing';

export { ARRIVAL_GRACE_MS, HEARTBEAT_EVERY_MS } from './send-timing';

export function deliveryActivities(deps: ActivityDeps) {
  const { orm, webhooks, encryptionKey, publicUrl } = deps;
  const { recordOutcome } = outcomeActivities(deps);
  const a2a = a2aDeliveryActivities(deps);
  const activities = {
    /**
     * Sends one push prompt. The session is marked `sending` before the request goes out, so a
     * retried attempt after a crash never sends it twice; only a request that provably never left
     * is released again and retried (by throwing a retryable failure).
     */
    async pushPrompt({
      sessionId,
      deadlineAt,
      answerWithinMs,
    }: {
      sessionId: number;
      /** When the prompt must have left by; without `answerWithinMs`, also when the agent must have answered by. */
      deadlineAt: number;
      /** The agent's time from the moment the prompt left (its deadline); deliveries begun before this existed omit it. */
      answerWithinMs?: number;
    }): Promise<Settlement> {
      const claimed = await claimPush(orm.em, sessionId);
      if (!claimed) {
        return {
          status: 'error',
          error: 'delivery interrupted after the request may have reached the agent; it is not sent twice',
          latencyMs: 0,
          notAgentsFault: true,
        };
      }
      if (claimed.deactivated || !claimed.webhook_url) {
        return {
          status: 'error',
          error: 'agent is deactivated or has no webhook_url; nothing was sent',
          latencyMs: 0,
          notAgentsFault: true,
        };
      }
      // Earlier attempts never reached the agent, and the time to send is over: nothing ever left.
      if (answerWithinMs !== undefined && Date.now() >= deadlineAt) return { status: 'deadline' };
      // A coding session's prompt carries its sandbox: where to take steps, and the session's token.
      const coding = isCodingSession(claimed) ? await findCodingSession(orm.em, sessionId) : undefined;
      const body = JSON.stringify(
        promptPayload({
          promptId: claimed.prompt_id,
          text: claimed.text,
          category: claimed.category,
          deadlineSeconds: claimed.deadline_seconds,
          ...(coding ? { sandbox: sandboxPayload(coding, publicUrl, encryptionKey) } : {}),
        }),
      );
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
          deliveryId: deliveryPublicId(claimed.kind, claimed.redelivery_of_id ?? claimed.id),
          sendWithinMs: Math.max(1, deadlineAt - Date.now()),
          timeoutMs:
            answerWithinMs === undefined ? Math.max(1, deadlineAt - Date.now()) : answerWithinMs + ARRIVAL_GRACE_MS,
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
          await releasePush(orm.em, {
            sessionId,
            error: publicFailureMessage(result.stage),
            errorDetail: result.message,
          });
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
      return answer.ok
        ? { status: 'answered', response: answer.response, latencyMs }
        : { status: 'error', error: answer.error, latencyMs };
    },

    /** Queues a pull delivery and wakes the agent's waiting long-polls, in any API process. */
    async queueWork({ sessionId }: { sessionId: number }): Promise<void> {
      await queueWorkItem(orm.em, sessionId);
    },

    /**
     * A pull delivery's deadline from its start has passed: expires the item if no runner took it,
     * else says how long the runner still has, its deadline counting from the lease.
     */
    async closeUnleasedWork({
      sessionId,
      deadlineSeconds,
    }: {
      sessionId: number;
      deadlineSeconds: number;
    }): Promise<{ leaseLeftMs: number }> {
      return { leaseLeftMs: await closeUnleasedWork(orm.em.fork(), sessionId, deadlineSeconds) };
    },

    /** One batch of the work items' retention: how many settled items it deleted. */
    async deleteSettledWork({ days, batch }: { days: number; batch: number }): Promise<number> {
      return deleteSettledWork(orm.em.fork(), days, batch);
    },
  };
  return {
    ...activities,
    ...a2a,

    /**
     * A push delivery in one activity: sends the prompt, waits for the answer and records the
     * outcome, so a delivery costs the engine one activity and no timer or second write.
     */
    async deliverPush(input: SendInput): Promise<PushOutcome> {
      const { sessionId, deadlineAt, answerWithinMs } = input;
      return recordSent(input, await activities.pushPrompt({ sessionId, deadlineAt, answerWithinMs }));
    },

    /** An A2A delivery in one activity, as a push delivery is: sends the message, follows its task, records. */
    async deliverA2a(input: SendInput): Promise<PushOutcome> {
      const { sessionId, deadlineAt, answerWithinMs } = input;
      return recordSent(input, await a2a.sendA2aPrompt({ sessionId, deadlineAt, answerWithinMs }));
    },
  };

  /**
   * Records what a send returned. An owner's cancel is recorded by the workflow before it cancels
   * the activity; what the request then returns is recorded as that cancel (the write is
   * first-wins, so either way it is a no-op).
   */
  async function recordSent(input: SendInput, answer: Settlement): Promise<PushOutcome> {
    const { sessionId, kind, deadlineSeconds } = input;
    const context = Context.current();
    const settlement: Settlement = context.cancellationDetails?.cancelRequested ? { status: 'cancelled' } : answer;
    try {
      return await recordOutcome({ sessionId, kind, deadlineSeconds, settlement });
    } catch (err) {
      // The prompt has been sent, so a retry of this activity would only record an interruption
      // and the answer would be lost. The workflow records it instead, retrying until the
      // database is back.
      context.log.warn('push outcome not written; the workflow records it', {
        sessionId,
        error: err instanceof Error ? err.message : String(err),
      });
      return { unrecorded: settlement };
    }
  }
}

/** What the workflow gives an activity that sends and records: the delivery, and its times. */
interface SendInput {
  sessionId: number;
  kind: DeliveryKind;
  deadlineSeconds: number;
  deadlineAt: number;
  answerWithinMs: number;
}
