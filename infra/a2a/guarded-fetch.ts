/**
 * The `fetch` the A2A SDK is given: every request it makes (the card, SendMessage, GetTask,
 * CancelTask) leaves through the webhook client's guarded pool, never follows a redirect, reads at
 * most a bounded answer, and carries the arena's signature headers when it has a body.
 */
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { checkWebhookUrl } from '../webhook/address-guard';
import {
  describeConnectFailure,
  describeExchangeFailure,
  formatBytes,
  type WebhookFailureStage,
} from '../webhook/failure';

export interface GuardedFetchOptions {
  dispatcher: Dispatcher;
  allowPrivate: boolean;
  /** How the address is named in a refusal: the card's own URL, or an address the card gave. */
  field: string;
  maxResponseBytes?: number;
  /** Headers for a request with this body (the signature, the bearer secret). */
  headersFor?: (body: Buffer) => Record<string, string>;
}

/** What went wrong on one call, and whether any byte of it may have reached the agent. */
export class A2aCallError extends Error {
  constructor(
    readonly stage: WebhookFailureStage,
    message: string,
    readonly neverSent: boolean,
  ) {
    super(message);
    this.name = 'A2aCallError';
  }
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
const USER_AGENT = 'AgentArena/1';
// Stages in which nothing was written to the agent: the request never left.
const BEFORE_SENDING = new Set<WebhookFailureStage>([
  'invalid-url',
  'private-address',
  'dns',
  'refused',
  'tls',
  'connect',
]);
const CONNECT_TIMEOUT_MS = 10_000;

export function guardedFetch(options: GuardedFetchOptions): typeof fetch {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const raw = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    // undici skips the connect-time lookup for literal IPs, so they are judged here.
    const checked = checkWebhookUrl(raw, { allowPrivate: options.allowPrivate, field: options.field });
    if (!checked.ok) {
      const stage = checkWebhookUrl(raw, { allowPrivate: true }).ok ? 'private-address' : 'invalid-url';
      throw new A2aCallError(stage, checked.reason, true);
    }
    const url = checked.url;
    const body = typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : undefined;
    const headers = new Headers(init.headers as ConstructorParameters<typeof Headers>[0]);
    headers.set('user-agent', USER_AGENT);
    if (body && options.headersFor)
      for (const [name, value] of Object.entries(options.headersFor(body))) headers.set(name, value);
    const target = {
      hostname: url.hostname,
      address: `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`,
      https: url.protocol === 'https:',
    };
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(url, {
        method: init.method ?? 'GET',
        headers: Object.fromEntries(headers),
        body,
        signal: init.signal ?? undefined,
        redirect: 'manual',
        dispatcher: options.dispatcher,
      });
    } catch (err) {
      if (init.signal?.aborted) throw err;
      const cause = ((err as { cause?: unknown }).cause ?? err) as Error & { code?: string };
      const connect = describeConnectFailure(cause, target, CONNECT_TIMEOUT_MS);
      if (BEFORE_SENDING.has(connect.stage)) throw new A2aCallError(connect.stage, connect.message, true);
      const exchange = describeExchangeFailure(cause, target, 0);
      throw new A2aCallError(exchange.stage, exchange.message, false);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new A2aCallError(
        'network',
        `${target.address} answered a redirect (HTTP ${response.status}), which is not followed`,
        false,
      );
    }
    const text = await readBounded(response, maxBytes);
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return guarded as typeof fetch;
}

/** The answer's text, refused once it passes `maxBytes` (declared or received). */
async function readBounded(response: Awaited<ReturnType<typeof undiciFetch>>, maxBytes: number): Promise<string> {
  const tooLarge = () => new A2aCallError('too-large', `answer larger than ${formatBytes(maxBytes)}`, false);
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of response.body) {
    received += chunk.length;
    if (received > maxBytes) throw tooLarge();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}
