/** An agent's connectivity ping: the save-time check of its webhook URL, and the signed ping whose result makes it active or not. */
import type { Agent } from '../infra/db/entities/agent.entity';
import type { WebhookClient } from '../infra/webhook/client';
import { pingWebhook } from '../infra/webhook/ping';
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
export function acceptWebhookUrl(raw: string, allowPrivate: boolean): string {
  const checked = checkWebhookUrl(raw, { allowPrivate });
  if (!checked.ok) throw new ArenaError('invalid', checked.reason);
  return checked.url.toString();
}

export async function pingAgent(agent: Agent, deps: PingDeps): Promise<void> {
  agent.pingsSent += 1;
  const secret = openSecret(agent.secretSealed, deps.encryptionKey);
  const result = await pingWebhook(deps.webhooks, agent.webhookUrl!, secret, agent.pingsSent, deps.pingTimeoutMs);
  agent.pingOk = result.ok;
  agent.pingError = result.error;
  // A webhook that works again starts a fresh run: earlier failed deliveries no longer count.
  if (result.ok) {
    agent.lastSeenAt = new Date();
    agent.consecutiveFailures = 0;
    agent.failingSince = null;
  }
}
