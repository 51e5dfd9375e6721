/** `arena-runner push`: a local webhook that checks the arena's signature and answers with the agent command. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DELIVERY_HEADER } from './signing';
import { runAgentCommand, type AgentCommand } from './adapter';
import { stderrLog, type Log } from './log';
import { describePayload, isPing, parseDelivery } from './payload';
import { ReplayGuard } from './replay-guard';

export interface PushServerOptions {
  secret: string;
  command: AgentCommand;
  host?: string;
  port?: number;
  /** How far X-Arena-Timestamp may be from this machine's clock; default 300 s. */
  toleranceSeconds?: number;
  /** Forced stop: running commands are killed at once. */
  killSignal?: AbortSignal;
  log?: Log;
}

export interface PushServer {
  url: string;
  /** Stops accepting prompts, lets the running ones finish and answer, then closes. */
  close(): Promise<void>;
}

export const DEFAULT_PUSH_HOST = '127.0.0.1';
export const DEFAULT_PUSH_PORT = 8080;
// The same limit the arena puts on what it reads back; a prompt payload is far smaller.
const MAX_BODY_BYTES = 1024 * 1024;

export async function startPushServer(opts: PushServerOptions): Promise<PushServer> {
  const log = opts.log ?? stderrLog;
  const guard = new ReplayGuard({ secret: opts.secret, toleranceSeconds: opts.toleranceSeconds });
  const running = new Set<Promise<void>>();
  const server = http.createServer((req, res) => {
    const handled = answerDelivery(req, res, { ...opts, guard }, log).catch((err: unknown) => {
      log(`could not answer a delivery: ${(err as Error).message}`);
      if (!res.headersSent) sendJson(res, 500, { detail: 'the runner failed to handle the prompt' });
    });
    running.add(handled);
    void handled.finally(() => running.delete(handled));
  });

  const host = opts.host ?? DEFAULT_PUSH_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? DEFAULT_PUSH_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;

  return {
    url,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (running.size > 0)
        log(`stopping: finishing ${running.size} running prompt${running.size === 1 ? '' : 's'} first`);
      await Promise.all(running);
      server.closeAllConnections();
      await closed;
    },
  };
}

async function answerDelivery(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  opts: PushServerOptions & { guard: ReplayGuard },
  log: Log,
): Promise<void> {
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return sendJson(res, 405, { detail: 'the arena delivers prompts with POST' });
  }
  const body = await readBody(req);
  if (body === 'too-large') {
    res.setHeader('connection', 'close');
    return sendJson(res, 413, { detail: `body larger than ${MAX_BODY_BYTES} bytes` });
  }
  const deliveryId = singleHeader(req.headers[DELIVERY_HEADER.toLowerCase()]);
  const refusal = opts.guard.admit(req.headers, body);
  if (refusal) {
    const hint = refusal.detail === 'invalid signature' ? ' (check --secret)' : '';
    log(`${deliveryId ?? 'a delivery'}: refused: ${refusal.detail}${hint}`);
    return sendJson(res, refusal.status, { detail: refusal.detail });
  }
  const parsed = parseDelivery(body.toString('utf8'));
  if (!parsed.ok) return sendJson(res, 400, { detail: `not a prompt payload: ${parsed.reason}` });

  const { payload } = parsed.delivery;
  const label = deliveryId ?? payload.prompt_id;
  if (isPing(payload)) {
    log(`${label}: connectivity ping answered`);
    return sendJson(res, 200, { response: 'pong' });
  }

  // The arena stops waiting at the deadline and hangs up; a prompt's command is of no use after
  // that. A coding session goes on until submit or its own deadline, whether anyone waits for the
  // summary or not, so its command is left to work.
  const hungUp = new AbortController();
  res.on('close', () => {
    if (!res.writableEnded) hungUp.abort();
  });
  const session = payload.sandbox !== undefined;
  const stops = [opts.killSignal, session ? undefined : hungUp.signal].filter((s) => s !== undefined);
  const killSignal = stops.length > 0 ? AbortSignal.any(stops) : undefined;

  log(`${label}: received ${describePayload(payload)}`);
  const startedAt = performance.now();
  const outcome = await runAgentCommand(opts.command, parsed.delivery, { killSignal, ...idsFromDelivery(deliveryId) });
  const latencyMs = Math.round(performance.now() - startedAt);
  if (hungUp.signal.aborted) {
    log(
      session
        ? `${label}: the arena stopped waiting for the summary; the command worked the session to its end (after ${latencyMs} ms)`
        : `${label}: the arena hung up before the answer was ready (after ${latencyMs} ms)`,
    );
    return;
  }
  if (outcome.ok) {
    // A coding session's answer is only its summary: the session is scored on its own.
    log(
      session
        ? `${label}: the command finished after ${latencyMs} ms; its summary goes back, and the session is scored when it is submitted or its deadline passes`
        : `${label}: answered in ${latencyMs} ms`,
    );
    return sendJson(res, 200, { response: outcome.response });
  }
  log(`${label}: error after ${latencyMs} ms: ${outcome.error}`);
  return sendJson(res, 500, { detail: outcome.error });
}

/** The raw bytes, exactly as signed; 'too-large' once past the limit (the rest is not kept). */
function readBody(req: http.IncomingMessage): Promise<Buffer | 'too-large'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    req.resume();
    return Promise.resolve('too-large');
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The delivery id is the session id `<kind>-<n>`, which is what pull calls the work id. */
function idsFromDelivery(deliveryId: string | undefined): { workId?: string; kind?: string } {
  if (deliveryId === undefined) return {};
  const kind = /^([a-z]+)-\d+$/.exec(deliveryId)?.[1];
  return kind === undefined ? { workId: deliveryId } : { workId: deliveryId, kind };
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
