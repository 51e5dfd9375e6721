/** The outbound webhook client: every signed POST to an agent's webhook leaves the service through here. */
import { Agent, type Dispatcher } from 'undici';
import { checkWebhookUrl } from './address-guard';
import {
  describeConnectFailure,
  describeExchangeFailure,
  formatBytes,
  formatSeconds,
  type FailureCause,
  type Target,
  type WebhookFailureStage,
} from './failure';
import { trackedConnector, type TrackedConnector } from './connector';
import { guardedLookup, type HostResolver } from './guarded-lookup';
import { signatureHeaders } from 'arena-runner/signing';

export type { WebhookFailureStage } from './failure';

export interface WebhookClientOptions {
  allowPrivate: boolean;
  /** Name resolution for the connect-time guard; the system's by default (tests make names change their answers). */
  resolveHost?: HostResolver;
  maxResponseBytes?: number;
  userAgent?: string;
}

export interface WebhookRequest {
  url: string;
  body: string;
  secret: string;
  deliveryId: string;
  /** How long the agent has once the request is sent (a delivery's deadline counts from there). */
  timeoutMs: number;
  /** How long connecting and waiting for a socket may take before the request is sent; `timeoutMs` if not given. */
  sendWithinMs?: number;
  signal?: AbortSignal;
}

export type WebhookResult =
  | { kind: 'response'; status: number; body: string; sentAt: number; receivedAt: number }
  | { kind: 'failure'; stage: WebhookFailureStage; neverSent: boolean; message: string; sentAt?: number };

type WebhookFailure = Extract<WebhookResult, { kind: 'failure' }>;

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
const DEFAULT_USER_AGENT = 'AgentArena/1';
// A TCP or TLS handshake that takes this long is not going to work; the request timeout may be longer.
const CONNECT_TIMEOUT_MS = 10_000;
const UNDICI_TIMER_SLACK_MS = 1_000;

/** Ends an exchange from our side; undici reports it back through onResponseError, which is then ignored. */
class ExchangeStopped extends Error {}

export class WebhookClient {
  private readonly agent: Agent;
  private readonly connector: TrackedConnector;
  private readonly maxResponseBytes: number;
  private readonly userAgent: string;
  private readonly inFlight = new Set<Promise<WebhookResult>>();
  private closed = false;

  constructor(private readonly opts: WebhookClientOptions) {
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.connector = trackedConnector({
      lookup: guardedLookup(opts.allowPrivate, opts.resolveHost),
      timeout: CONNECT_TIMEOUT_MS,
    });
    this.agent = new Agent({
      connect: this.connector.connect,
      // undici's default, stated because it matters: servers often drop idle sockets after 5 s, and a
      // POST written onto a socket the server is closing fails as "may have arrived", so is never retried.
      keepAliveTimeout: 4_000,
    });
  }

  /**
   * The guarded connection pool, for other outbound protocols (A2A): its lookup refuses private
   * addresses at connect time, as for every webhook POST.
   */
  get dispatcher(): Dispatcher {
    return this.agent;
  }

  /** Whether private and loopback addresses may be called (tests and closed networks only). */
  get allowPrivate(): boolean {
    return this.opts.allowPrivate;
  }

  post(req: WebhookRequest): Promise<WebhookResult> {
    const result = this.deliver(req);
    this.inFlight.add(result);
    void result.then(() => this.inFlight.delete(result));
    return result;
  }

  /** Lets requests in flight finish (each ends by its own timeout at the latest), then drops every socket. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.inFlight);
    // What undici still holds now is only requests we already gave up on while they waited to connect.
    const destroyed = this.agent.destroy();
    this.connector.abortPending(new Error('webhook client closed'));
    await destroyed;
  }

  private deliver(req: WebhookRequest): Promise<WebhookResult> {
    // Parsing, scheme and credentials first, so a bad URL is reported as such even when private ones are allowed.
    const parsed = checkWebhookUrl(req.url, { allowPrivate: true });
    if (!parsed.ok) return Promise.resolve(notSent('invalid-url', parsed.reason));
    // undici skips the lookup for literal IPs, so the guard on the hostname is the only check they get.
    const guarded = checkWebhookUrl(req.url, { allowPrivate: this.opts.allowPrivate });
    if (!guarded.ok) return Promise.resolve(notSent('private-address', guarded.reason));
    if (this.closed) return Promise.resolve(notSent('network', 'webhook client is closed'));
    if (req.signal?.aborted) return Promise.resolve(notSent(...cancelCause(req.signal, false)));

    const url = parsed.url;
    const body = Buffer.from(req.body, 'utf8');
    const headers = {
      'content-type': 'application/json',
      'user-agent': this.userAgent,
      ...signatureHeaders(req.secret, body, { deliveryId: req.deliveryId, timestamp: Math.floor(Date.now() / 1000) }),
    };
    return this.exchange(url, body, headers, req);
  }

  private exchange(
    url: URL,
    body: Buffer,
    headers: Record<string, string>,
    req: WebhookRequest,
  ): Promise<WebhookResult> {
    const target = targetOf(url);
    const maxBytes = this.maxResponseBytes;

    return new Promise<WebhookResult>((resolve) => {
      let controller: Dispatcher.DispatchController | undefined;
      let sentAt: number | undefined;
      let status = 0;
      let received = 0;
      const chunks: Buffer[] = [];
      let settled = false;

      const settle = (result: WebhookResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onCancel);
        resolve(result);
      };
      // Settles first, so the error undici echoes back for our own abort changes nothing.
      const stop = (cause: FailureCause) => {
        settle(failed(cause, sentAt));
        controller?.abort(new ExchangeStopped(cause.message));
      };
      const sendWithinMs = req.sendWithinMs ?? req.timeoutMs;
      const onTimeout = () => {
        const message =
          sentAt === undefined
            ? `timed out after ${formatSeconds(sendWithinMs)} connecting to ${target.address}`
            : `timed out after ${formatSeconds(req.timeoutMs)}`;
        stop({ stage: 'timeout', message });
      };
      const onCancel = () => {
        const [stage, message] = cancelCause(req.signal!, sentAt !== undefined);
        stop({ stage, message });
      };
      const onError = (err: Error) => {
        if (settled) return;
        // Whether onRequestStart ran is exactly whether any byte of the request may have been written.
        const cause =
          sentAt === undefined
            ? describeConnectFailure(err, target, CONNECT_TIMEOUT_MS)
            : describeExchangeFailure(err, target, req.timeoutMs);
        settle(failed(cause, sentAt));
      };
      // Until the request is sent, then the request's own time from that moment.
      let timer = setTimeout(onTimeout, sendWithinMs);
      req.signal?.addEventListener('abort', onCancel, { once: true });

      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          // We gave up while it waited for a socket: abort now and it is never written.
          if (settled) return c.abort(new ExchangeStopped('abandoned before sending'));
          sentAt = Date.now();
          clearTimeout(timer);
          timer = setTimeout(onTimeout, req.timeoutMs);
        },
        onResponseStart(_c, statusCode, responseHeaders) {
          status = statusCode;
          const declared = Number(responseHeaders['content-length']);
          if (Number.isFinite(declared) && declared > maxBytes) {
            stop({ stage: 'too-large', message: `response larger than ${formatBytes(maxBytes)}` });
          }
        },
        onResponseData(_c, chunk) {
          if (settled) return;
          received += chunk.length;
          if (received > maxBytes) {
            stop({ stage: 'too-large', message: `response larger than ${formatBytes(maxBytes)}` });
            return;
          }
          chunks.push(chunk);
        },
        onResponseEnd() {
          const receivedAt = Date.now();
          const text = Buffer.concat(chunks).toString('utf8');
          settle({ kind: 'response', status, body: text, sentAt: sentAt ?? receivedAt, receivedAt });
        },
        onResponseError(_c, err) {
          onError(err);
        },
      };

      try {
        this.agent.dispatch(
          {
            origin: url.origin,
            path: `${url.pathname}${url.search}`,
            method: 'POST',
            headers,
            body,
            // Our own timer bounds the exchange. These only stop undici waiting longer than it, and come
            // a second later: undici's own timers tick every half second and may fire up to a tick early.
            headersTimeout: req.timeoutMs + UNDICI_TIMER_SLACK_MS,
            bodyTimeout: req.timeoutMs + UNDICI_TIMER_SLACK_MS,
          },
          handler,
        );
      } catch (err) {
        onError(err as Error);
      }
    });
  }
}

function targetOf(url: URL): Target {
  const https = url.protocol === 'https:';
  const port = url.port || (https ? '443' : '80');
  return { hostname: url.hostname, address: `${url.hostname}:${port}`, https };
}

function failed(cause: FailureCause, sentAt: number | undefined): WebhookFailure {
  const failure: WebhookFailure = {
    kind: 'failure',
    stage: cause.stage,
    neverSent: sentAt === undefined,
    message: cause.message,
  };
  if (sentAt !== undefined) failure.sentAt = sentAt;
  return failure;
}

function notSent(stage: WebhookFailureStage, message: string): WebhookFailure {
  return { kind: 'failure', stage, neverSent: true, message };
}

// A caller's AbortSignal.timeout() is a deadline, which owners should read as a timeout.
function cancelCause(signal: AbortSignal, sent: boolean): [WebhookFailureStage, string] {
  const reason = signal.reason as { name?: string } | undefined;
  if (reason?.name === 'TimeoutError') {
    return ['timeout', sent ? 'timed out (deadline reached)' : 'deadline reached before the request was sent'];
  }
  return ['network', sent ? 'cancelled before the webhook answered' : 'cancelled before the request was sent'];
}
