/** The runner's side of the pull API: fetch the next work item, post its result. */
import { Agent, request, type Dispatcher } from 'undici';
import { retryAfterMs } from './backoff';
import { parseDelivery, type PromptDelivery } from './payload';

export const SECRET_HEADER = 'X-Arena-Secret';
const USER_AGENT = 'arena-runner/1';
/** The protocol this runner speaks: GET /api/version's `version`. */
export const PROTOCOL_VERSION = 1;
const VERSION_TIMEOUT_MS = 15_000;
// Beyond the long-poll itself, how long the arena may take to answer before the poll counts as lost.
const POLL_SLACK_MS = 15_000;
const RESULT_TIMEOUT_MS = 30_000;
const MAX_ERROR_BODY_CHARS = 2_000;

/** A refusal that retrying cannot fix: the runner stops and says why. */
export class RunnerFatalError extends Error {
  override name = 'RunnerFatalError';
}

export type NextWork =
  | { kind: 'work'; delivery: PromptDelivery; workId: string }
  | { kind: 'none' }
  | { kind: 'stopped' }
  | { kind: 'retry'; reason: string; retryAfterMs?: number };

export type PostedResult =
  /** `status` and `error`: what the arena made of the result (an arena that does not say leaves them out). */
  | { kind: 'recorded'; status?: string; error?: string | null }
  | { kind: 'refused'; status: number; detail: string }
  | { kind: 'retry'; reason: string; retryAfterMs?: number };

export type ResultBody = ({ response: string } | { error: string }) & { latency_ms: number };

export interface ArenaClientOptions {
  baseUrl: string;
  agentId: string;
  secret: string;
}

export class ArenaClient {
  private readonly dispatcher = new Agent({ keepAliveTimeout: 4_000 });
  private readonly agentUrl: string;

  constructor(private readonly opts: ArenaClientOptions) {
    this.agentUrl = `${opts.baseUrl.replace(/\/+$/, '')}/api/agents/${encodeURIComponent(opts.agentId)}`;
  }

  /** Long-polls work/next. Throws RunnerFatalError when the arena refuses this agent or secret. */
  async nextWork(waitSeconds: number, stop: AbortSignal): Promise<NextWork> {
    if (stop.aborted) return { kind: 'stopped' };
    // The stop only cuts the wait for headers: once the arena has leased an item to us, its body is
    // read to the end, so a Ctrl-C at that moment does not lose a prompt that is already ours.
    const untilHeaders = new AbortController();
    const onStop = () => untilHeaders.abort();
    stop.addEventListener('abort', onStop, { once: true });
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${this.agentUrl}/work/next?wait=${waitSeconds}`, {
        method: 'GET',
        headers: this.headers(),
        dispatcher: this.dispatcher,
        signal: untilHeaders.signal,
        headersTimeout: waitSeconds * 1000 + POLL_SLACK_MS,
        bodyTimeout: POLL_SLACK_MS,
      });
    } catch (err) {
      if (stop.aborted) return { kind: 'stopped' };
      return { kind: 'retry', reason: describeNetworkError(err) };
    } finally {
      stop.removeEventListener('abort', onStop);
    }

    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      return { kind: 'retry', reason: `reading the answer failed: ${describeNetworkError(err)}` };
    }
    if (res.statusCode === 204) return { kind: 'none' };
    if (res.statusCode === 200) {
      const parsed = parseDelivery(text);
      if (!parsed.ok) return { kind: 'retry', reason: `unreadable payload: ${parsed.reason}` };
      const workId = parsed.delivery.payload.work_id;
      if (workId === undefined) return { kind: 'retry', reason: 'payload without work_id' };
      return { kind: 'work', delivery: parsed.delivery, workId };
    }
    if (isRetryable(res.statusCode)) {
      return {
        kind: 'retry',
        reason: `HTTP ${res.statusCode}`,
        retryAfterMs: retryAfterMs(res.headers['retry-after']),
      };
    }
    throw new RunnerFatalError(this.refusal(res.statusCode, detailOf(text)));
  }

  /**
   * Throws RunnerFatalError when the arena speaks another protocol version. An arena that cannot
   * be asked right now (down, or a proxy's error) is the pull loop's to wait for: that returns
   * the reason, and the runner goes on.
   */
  async checkProtocol(): Promise<string | undefined> {
    const url = `${this.opts.baseUrl.replace(/\/+$/, '')}/api/version`;
    let spoken: unknown;
    try {
      const res = await request(url, {
        headers: { 'user-agent': USER_AGENT, accept: 'application/json' },
        dispatcher: this.dispatcher,
        headersTimeout: VERSION_TIMEOUT_MS,
        bodyTimeout: VERSION_TIMEOUT_MS,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) return `GET /api/version answered HTTP ${res.statusCode}`;
      spoken = (JSON.parse(text) as { version?: unknown }).version;
    } catch (err) {
      return `GET /api/version failed: ${err instanceof SyntaxError ? 'the answer is not JSON' : describeNetworkError(err)}`;
    }
    if (spoken === PROTOCOL_VERSION) return undefined;
    throw new RunnerFatalError(
      `the arena at ${this.opts.baseUrl} speaks protocol version ${JSON.stringify(spoken)} and this runner speaks ${PROTOCOL_VERSION}: run the runner that arena serves (see ${this.opts.baseUrl.replace(/\/+$/, '')}/downloads/)`,
    );
  }

  async postResult(workId: string, body: ResultBody): Promise<PostedResult> {
    let res: Dispatcher.ResponseData;
    let text: string;
    try {
      res = await request(`${this.agentUrl}/work/${encodeURIComponent(workId)}/result`, {
        method: 'POST',
        headers: { ...this.headers(), 'content-type': 'application/json' },
        body: JSON.stringify(body),
        dispatcher: this.dispatcher,
        headersTimeout: RESULT_TIMEOUT_MS,
        bodyTimeout: RESULT_TIMEOUT_MS,
      });
      text = await res.body.text();
    } catch (err) {
      return { kind: 'retry', reason: describeNetworkError(err) };
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return recordedAs(text);
    if (isRetryable(res.statusCode)) {
      return {
        kind: 'retry',
        reason: `HTTP ${res.statusCode}`,
        retryAfterMs: retryAfterMs(res.headers['retry-after']),
      };
    }
    return { kind: 'refused', status: res.statusCode, detail: detailOf(text) };
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private headers(): Record<string, string> {
    return { [SECRET_HEADER]: this.opts.secret, 'user-agent': USER_AGENT, accept: 'application/json' };
  }

  private refusal(status: number, detail: string): string {
    const agent = `agent ${this.opts.agentId}`;
    switch (status) {
      case 401:
      case 403:
        return `the arena rejected the secret for ${agent} (HTTP ${status}: ${detail}); check --secret or ARENA_AGENT_SECRET (a regenerated secret replaces the old one at once)`;
      case 404:
        return `${agent} was not found at ${this.opts.baseUrl} (HTTP 404: ${detail}); check --agent and --base-url`;
      case 409:
        return `${agent} cannot take work (HTTP 409): ${detail}`;
      default:
        return `work/next answered HTTP ${status}: ${detail}`;
    }
  }
}

// Worth another try: the arena or something in front of it is busy, restarting or overloaded.
function isRetryable(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/** The arena answers errors as {detail}; anything else (a proxy's page) is shown shortened. */
export function detailOf(text: string): string {
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    if (typeof body.detail === 'string') return body.detail;
  } catch {
    // not JSON: fall through
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return 'no detail given';
  return flat.length > MAX_ERROR_BODY_CHARS ? `${flat.slice(0, MAX_ERROR_BODY_CHARS)}…` : flat;
}

export function describeNetworkError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  const message = e.cause?.message ?? e.message ?? String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

function recordedAs(text: string): PostedResult {
  try {
    const body = JSON.parse(text) as { status?: unknown; error?: unknown };
    return {
      kind: 'recorded',
      ...(typeof body.status === 'string' ? { status: body.status } : {}),
      ...(typeof body.error === 'string' ? { error: body.error } : {}),
    };
  } catch {
    return { kind: 'recorded' };
  }
}
