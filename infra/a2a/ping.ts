/**
 * An A2A agent's connectivity ping: read its card, then send one message shaped like a prompt, as a
 * push agent's ping is. It passes when the agent answers or takes the message as a task; a task
 * still going is cancelled, since nobody will read it.
 */
import { signatureHeaders } from 'arena-runner/signing';
import type { WebhookClient } from '../webhook/client';
import { checkWebhookUrl } from '../webhook/address-guard';
import { a2aClient, messageOf, promptMessage, readAgentCard, readReply } from './agent-client';
import { guardedFetch } from './guarded-fetch';

export interface A2aPingOutcome {
  ok: boolean;
  error: string | null;
  /** The card as read, when it was one the arena can call. */
  card: Record<string, unknown> | null;
}

const PING_DEADLINE_SECONDS = 15;

/** The headers every A2A call carries: the agent's secret as a bearer token, and the push mode's signature. */
export function a2aHeaders(secret: string, deliveryId: string): (body: Buffer) => Record<string, string> {
  return (body) => ({
    authorization: `Bearer ${secret}`,
    ...signatureHeaders(secret, body, { deliveryId, timestamp: Math.floor(Date.now() / 1000) }),
  });
}

/** A fetch for calls to the agent's interface (signed), or for reading its card (not signed). */
export function a2aFetch(webhooks: WebhookClient, signWith?: { secret: string; deliveryId: string }): typeof fetch {
  return guardedFetch({
    dispatcher: webhooks.dispatcher,
    allowPrivate: webhooks.allowPrivate,
    field: signWith ? "the agent card's JSON-RPC url" : 'agent_card_url',
    ...(signWith ? { headersFor: a2aHeaders(signWith.secret, signWith.deliveryId) } : {}),
  });
}

export async function pingA2aAgent(
  webhooks: WebhookClient,
  cardUrl: string,
  secret: string,
  pingNumber: number,
  timeoutMs: number,
): Promise<A2aPingOutcome> {
  const reading = await readAgentCard(a2aFetch(webhooks), cardUrl, timeoutMs);
  if (!reading.ok) return { ok: false, error: reading.error, card: null };
  // Checked here too, so the owner reads which address of the card is refused.
  const endpoint = checkWebhookUrl(reading.endpoint, {
    allowPrivate: webhooks.allowPrivate,
    field: "the agent card's JSON-RPC url",
  });
  if (!endpoint.ok) return { ok: false, error: endpoint.reason, card: null };

  const promptId = `ping-${pingNumber}`;
  const fetchImpl = a2aFetch(webhooks, { secret, deliveryId: promptId });
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const client = await a2aClient(fetchImpl, reading.card);
    const sent = await client.sendMessage(
      {
        tenant: '',
        message: promptMessage({
          messageId: promptId,
          text: 'ping',
          metadata: { prompt_id: promptId, category: 'ping', deadline_seconds: PING_DEADLINE_SECONDS },
        }),
        configuration: undefined,
        metadata: undefined,
      },
      { signal },
    );
    const reply = readReply(sent);
    if (reply.kind === 'failed')
      return { ok: false, error: `the ping's ${reply.error.replace(/^the /, '')}`, card: reading.card };
    if (reply.kind === 'working') {
      await client.cancelTask({ tenant: '', id: reply.taskId, metadata: undefined }, { signal }).catch(() => undefined);
    }
    return { ok: true, error: null, card: reading.card };
  } catch (err) {
    const error = signal.aborted
      ? `the agent did not answer the ping within ${timeoutMs / 1000} s`
      : `the agent's JSON-RPC interface (${reading.endpoint}) failed the ping: ${messageOf(err)}`;
    return { ok: false, error, card: reading.card };
  }
}
