/** Runs an agent's connectivity ping and records the result on the agent. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Agent } from '../../../infra/db/entities/agent.entity';
import { openSecret } from '../../../domain/credentials';
import type { WebhookClient } from '../../../infra/webhook/client';
import { pingWebhook } from '../../../infra/webhook/ping';
import { checkWebhookUrl } from '../../../infra/webhook/address-guard';
import { ApiError } from '../../errors';

/** Spends one of the caller's budget for an action, or refuses the request with 429. */
export type SpendBudget = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface PingDeps {
  webhooks: WebhookClient;
  encryptionKey: Buffer;
  allowPrivateWebhooks: boolean;
  pingTimeoutMs?: number;
}

/** The save-time URL check; the connect-time check in the client catches DNS that changes later. */
export function acceptWebhookUrl(raw: string, allowPrivate: boolean): string {
  const checked = checkWebhookUrl(raw, { allowPrivate });
  if (!checked.ok) throw new ApiError(400, checked.reason);
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
    agent.consecutiveFailures = 0;
    agent.failingSince = null;
  }
}
