/**
 * Sending one prompt to an A2A agent: the prompt as a message that asks for an immediate reply, then
 * the task it started followed with GetTask until it ends or the deadline comes (and then it is
 * cancelled). Claimed like a push delivery, so a retried attempt never sends twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { openSecret } from '../domain/credentials';
import { acceptAnswerText } from '../domain/delivery-payload';
import { deliveryPublicId, isCodingSession } from '../domain/deliveries';
import { sandboxPayload } from '../domain/sandbox/payload';
import { findCodingSession } from '../infra/db/repositories/coding.repository';
import { claimPush, releasePush } from '../infra/db/repositories/delivery.repository';
import { a2aClient, messageOf, promptMessage, readReply, type A2aReply } from '../infra/a2a/agent-client';
import { A2aCallError } from '../infra/a2a/guarded-fetch';
import { a2aFetch } from '../infra/a2a/ping';
import { publicFailureMessage } from '../infra/webhook/failure';
import type { Settlement } from '../workflows/contracts';
import type { ActivityDeps } from './deps';
import { ARRIVAL_GRACE_MS, HEARTBEAT_EVERY_MS } from './send-timing';

/** How often a task still going is asked after: soon at first, then every 2 s at most. */
const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 2_000;
/** A task the arena gives up on is cancelled with this long to answer; its answer changes nothing. */
const CANCEL_WITHIN_MS = 5_000;
/** GetTask calls that may fail in a row (the network, not the agent's refusal) before the delivery fails. */
const POLL_FAILURES_ALLOWED = 3;
const ENDPOINT = 'A2A endpoint';

export function a2aDeliveryActivities(deps: ActivityDeps) {
  const { orm, webhooks, encryptionKey, publicUrl } = deps;
  return {
    /**
     * Sends one prompt to an A2A agent and follows its task; `answerWithinMs` counts from the moment
     * the message was sent. The caller records what this returns.
     */
    async sendA2aPrompt({
      sessionId,
      deadlineAt,
      answerWithinMs,
    }: {
      sessionId: number;
      deadlineAt: number;
      answerWithinMs: number;
    }): Promise<Settlement> {
      const claimed = await claimPush(orm.em, sessionId);
      if (!claimed) {
        return {
          status: 'error',
          error: 'delivery interrupted after the message may have reached the agent; it is not sent twice',
          latencyMs: 0,
          notAgentsFault: true,
        };
      }
      if (claimed.deactivated || claimed.mode !== 'a2a' || !claimed.a2a_card) {
        return {
          status: 'error',
          error: 'agent is deactivated or has no agent card the arena could read; nothing was sent',
          latencyMs: 0,
          notAgentsFault: true,
        };
      }
      if (Date.now() >= deadlineAt) return { status: 'deadline' };
      const deliveryId = deliveryPublicId(claimed.kind, claimed.redelivery_of_id ?? claimed.id);
      // A coding session's prompt carries its sandbox: where to take steps (REST or MCP), and the token.
      const coding = isCodingSession(claimed) ? await findCodingSession(orm.em, sessionId) : undefined;
      const secret = openSecret(claimed.secret_sealed, encryptionKey);
      const client = await a2aClient(a2aFetch(webhooks, { secret, deliveryId }), claimed.a2a_card);
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      const sentAt = Date.now();
      const deadline = AbortSignal.timeout(answerWithinMs + ARRIVAL_GRACE_MS);
      const signal = AbortSignal.any([deadline, context.cancellationSignal]);
      const latencyMs = () => Math.max(0, Date.now() - sentAt);
      let taskId: string | undefined;
      try {
        let reply: A2aReply;
        try {
          reply = readReply(
            await client.sendMessage(
              {
                tenant: '',
                message: promptMessage({
                  messageId: deliveryId,
                  text: claimed.text,
                  metadata: {
                    prompt_id: claimed.prompt_id,
                    category: claimed.category,
                    deadline_seconds: claimed.deadline_seconds,
                    ...(coding ? { sandbox: sandboxPayload(coding, publicUrl, encryptionKey) } : {}),
                  },
                }),
                configuration: undefined,
                metadata: undefined,
              },
              { signal },
            ),
          );
        } catch (err) {
          if (err instanceof A2aCallError && err.neverSent) {
            // Nothing reached the agent: release the claim and let Temporal try again within the deadline.
            await releasePush(orm.em, {
              sessionId,
              error: publicFailureMessage(err.stage, ENDPOINT),
              errorDetail: err.message,
            });
            throw ApplicationFailure.retryable(err.message, 'A2aNeverSent');
          }
          throw err;
        }
        let failures = 0;
        for (let wait = FIRST_POLL_MS; reply.kind === 'working'; wait = Math.min(MAX_POLL_MS, wait * 2)) {
          taskId = reply.taskId;
          await sleep(wait, undefined, { signal });
          try {
            reply = readReply(await client.getTask({ tenant: '', id: taskId }, { signal }));
            failures = 0;
          } catch (err) {
            // The network may drop one poll; the agent's own refusal (a JSON-RPC error) ends it.
            if (!(err instanceof A2aCallError) || ++failures >= POLL_FAILURES_ALLOWED) throw err;
          }
        }
        // An ended task needs no cancel; one that asks for input is still open, and is cancelled.
        taskId = reply.kind === 'failed' ? reply.openTaskId : undefined;
        if (reply.kind === 'failed') return { status: 'error', error: reply.error, latencyMs: latencyMs() };
        const answer = acceptAnswerText(reply.text, "the agent's answer");
        return answer.ok
          ? { status: 'answered', response: answer.response, latencyMs: latencyMs() }
          : { status: 'error', error: answer.error, latencyMs: latencyMs() };
      } catch (err) {
        if (err instanceof ApplicationFailure) throw err;
        if (deadline.aborted) return { status: 'deadline' };
        if (context.cancellationSignal.aborted) return { status: 'cancelled' };
        if (err instanceof A2aCallError) {
          return {
            status: 'error',
            error: publicFailureMessage(err.stage, ENDPOINT),
            errorDetail: err.message,
            latencyMs: latencyMs(),
          };
        }
        // The SDK's message may hold the agent's whole answer: the feed gets its start, the owner more.
        const said = messageOf(err);
        return {
          status: 'error',
          error: `the agent answered with an A2A error: ${truncate(said, 300)}`,
          errorDetail: truncate(said, 2_000),
          latencyMs: latencyMs(),
        };
      } finally {
        clearInterval(beat);
        // A task the arena no longer waits for (the deadline, a cancel, a failure) is cancelled.
        if (taskId !== undefined) {
          await client
            .cancelTask(
              { tenant: '', id: taskId, metadata: undefined },
              { signal: AbortSignal.timeout(CANCEL_WITHIN_MS) },
            )
            .catch(() => undefined);
        }
      }
    },
  };
}

function truncate(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars)}…`;
}
