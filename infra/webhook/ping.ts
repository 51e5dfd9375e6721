/** The connectivity ping: a signed, prompt-shaped POST that tells an owner whether their webhook works. */
import type { WebhookClient, WebhookResult } from './client';

export const PING_TIMEOUT_MS = 15_000;
const PING_DEADLINE_SECONDS = 15;

export interface PingOutcome {
  ok: boolean;
  error: string | null;
}

export async function pingWebhook(
  client: WebhookClient,
  url: string,
  secret: string,
  pingNumber: number,
  timeoutMs = PING_TIMEOUT_MS,
): Promise<PingOutcome> {
  const promptId = `ping-${pingNumber}`;
  // Shaped like a real prompt so an agent that handles prompts handles the ping with no special case.
  // The body is fixed by the contract even when a caller waits less (tests shorten the timeout).
  const body = JSON.stringify({
    prompt_id: promptId,
    prompt: 'ping',
    category: 'ping',
    deadline_seconds: PING_DEADLINE_SECONDS,
  });
  const result = await client.post({ url, body, secret, deliveryId: promptId, timeoutMs });
  return pingOutcome(result);
}

export function pingOutcome(result: WebhookResult): PingOutcome {
  if (result.kind === 'failure') return { ok: false, error: result.message };
  if (result.status >= 200 && result.status < 300) return { ok: true, error: null };
  if (result.status >= 300 && result.status < 400) {
    return { ok: false, error: `webhook answered a redirect (HTTP ${result.status}), which is not followed` };
  }
  return { ok: false, error: `webhook answered HTTP ${result.status}` };
}
