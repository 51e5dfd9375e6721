/** An agent's connectivity ping: the save-time check of its address, and the signed ping whose result makes it active or not. */
import type { Agent } from '../infra/db/entities/agent.entity';
import type { WebhookClient } from '../infra/webhook/client';
import { pingWebhook, PING_TIMEOUT_MS } from '../infra/webhook/ping';
import { pingA2aAgent } from '../infra/a2a/ping';
import { checkWebhookUrl } from '../infra/webhook/address-guard';
import { openSecret } from '../domain/credentials';
import { ArenaError } from '../domain/errors';

export interface PingDeps {
  webhooks: WebhookClient;
  encryptionKey: Buffer;
  allowPrivateWebhooks: boolean;
  pingTimeoutMs?: number;
}

/** Spends one of the owner's pings (each is an outbound request whose outcome they read), or refuses. */
export type SpendPing = () => Promise<void>;

/** The save-time URL check; the connect-time check in the client catches DNS that changes later. */
export function acceptWebhookUrl(raw: string, allowPrivate: boolean, field = 'webhook_url'): string {
  const checked = checkWebhookUrl(raw, { allowPrivate, field });
  if (!checked.ok) throw new ArenaError('invalid', checked.reason);
  return checked.url.toString();
}

/** Pings a push agent's webhook, or reads an A2A agent's card and sends it one message. */
export async function pingAgent(agent: Agent, deps: PingDeps): Promise<void> {
  agent.pingsSent += 1;
  const secret = openSecret(agent.secretSealed, deps.encryptionKey);
  let result: { ok: boolean; error: string | null };
  if (agent.mode === 'a2a') {
    const timeoutMs = deps.pingTimeoutMs ?? PING_TIMEOUT_MS;
    const pinged = await pingA2aAgent(deps.webhooks, agent.agentCardUrl!, secret, agent.pingsSent, timeoutMs);
    // The card a delivery calls is the one the last ping read; a card that cannot be called is kept
    // from no delivery, since a failed ping leaves the agent inactive.
    agent.a2aCard = pinged.card;
    result = pinged;
  } else {
    result = await pingWebhook(deps.webhooks, agent.webhookUrl!, secret, agent.pingsSent, deps.pingTimeoutMs);
  }
  agent.pingOk = result.ok;
  agent.pingError = result.error;
  // A webhook that works again starts a fresh run: earlier failed deliveries no longer count.
  if (result.ok) {
    agent.lastSeenAt = new Date();
    agent.consecutiveFailures = 0;
    agent.failingSince = null;
  }
}
