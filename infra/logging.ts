/**
 * Structured logs (pino JSON lines) for the API and the worker, with every secret redacted: keys,
 * agent secrets, passwords, cookies and the one-use codes an identity provider sends back. A
 * person at a terminal gets the same events as short coloured lines instead (pino-pretty).
 */
import type { IncomingMessage } from 'node:http';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pinoPretty from 'pino-pretty';

const SECRET_FIELDS = [
  'password',
  'api_key',
  'apiKey',
  'webhook_secret',
  'secret',
  'token',
  'client_secret',
  'clientSecret',
  'encryptionKey',
  'csrf',
  '_csrf',
];

/** pino redact paths: secret headers wherever a request is logged, and secret fields at the top level or one level down. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-arena-secret"]',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-arena-secret"]',
  'headers.cookie',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
];

const SECRET_QUERY = /([?&](?:code|state|token|secret|key|password|session_state|id_token)=)[^&#]*/gi;

/** A URL as it may be logged: the values of query parameters that carry secrets replaced. */
export function loggableUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

export type LogFormat = 'json' | 'pretty';

/** The format a process writes: as configured (LOG_FORMAT), else pretty for a terminal and JSON for anything else. */
export function resolveLogFormat(
  configured: LogFormat | undefined,
  stdoutIsTty = process.stdout.isTTY === true,
): LogFormat {
  return configured ?? (stdoutIsTty ? 'pretty' : 'json');
}

/** `name` is the process part a line comes from (`api`, `worker`, `arena`), in both formats. */
export function loggerOptions(level: string, name?: string): LoggerOptions {
  return {
    level,
    ...(name ? { name } : {}),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: IncomingMessage & { id?: string; ip?: string }) => ({
        id: req.id,
        method: req.method,
        url: loggableUrl(req.url ?? ''),
        remoteAddress: req.ip ?? req.socket?.remoteAddress,
      }),
    },
  };
}

/**
 * Standard output. JSON lines are written asynchronously: a line is appended to a buffer and the
 * write happens off the event loop, so a busy process writes many lines per system call instead
 * of one synchronous write per line (which cost the API a seventh of its CPU under load). Lines
 * still go out within moments, and pino flushes what is left when the process exits. Pretty
 * lines are for a person watching, at a person's pace: written at once, so they keep their order
 * with what the process prints itself.
 */
export function stdoutDestination(format: LogFormat = 'json'): DestinationStream {
  return format === 'json' ? pino.destination({ dest: 1, sync: false }) : prettyStream(1);
}

/** Pretty lines to a file descriptor or a stream, coloured when standard output is a terminal that takes colour. */
export function prettyStream(destination: number | NodeJS.WritableStream): DestinationStream {
  return pinoPretty({
    destination,
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    singleLine: true,
    ignore: PRETTY_IGNORED.join(','),
    messageFormat: humanMessage,
  });
}

/** Fields a pretty line leaves out: said by the message already (see humanMessage), or the SDK's bookkeeping. */
const PRETTY_IGNORED = [
  'pid',
  'hostname',
  'req',
  'res',
  'reqId',
  'responseTime',
  'sdk',
  'sdkComponent',
  'sessionId',
  'kind',
  'status',
  'latencyMs',
  'mode',
  'namespace',
  'taskQueue',
  'workflowId',
  'workflowType',
  'runId',
  'activityId',
  'activityType',
  'attempt',
  'isLocal',
];

/**
 * A pretty line's message: a delivery as its id and outcome (`delivery recorded: gym-12 answered
 * in 840 ms`), a request as its method and address, and its answer as status and time, each
 * with the first characters of the request id that ties the two together; an informational
 * report of the SDK as its first line.
 */
export function humanMessage(log: Record<string, unknown>, messageKey: string): string {
  let message = String(log[messageKey] ?? '');
  // The SDK's informational reports can run to pages (the workflow bundle's build): their first line says what happened.
  if (log.sdk === true && Number(log.level) <= 30 && message.includes('\n')) message = `${message.split('\n')[0]} …`;
  if (typeof log.kind === 'string' && typeof log.sessionId === 'number') {
    const outcome = typeof log.status === 'string' ? ` ${log.status}` : '';
    const took = typeof log.latencyMs === 'number' ? ` in ${log.latencyMs} ms` : '';
    const error = typeof log.error === 'string' ? `: ${log.error}` : '';
    return `${message}: ${log.kind}-${log.sessionId}${outcome}${took}${error}`;
  }
  const request = typeof log.reqId === 'string' ? `[${log.reqId.slice(0, 8)}] ` : '';
  const req = log.req as { method?: string; url?: string } | undefined;
  if (message === 'incoming request' && req) return `${request}${req.method} ${req.url}`;
  const res = log.res as { statusCode?: number } | undefined;
  if (message === 'request completed' && res)
    return `${request}${res.statusCode} in ${Math.round(Number(log.responseTime ?? 0))} ms`;
  return `${request}${message}`;
}

/** A standalone logger (the worker, the CLI) with the same redaction as the API's. */
export function createLogger(
  level: string,
  options: { name?: string; format?: LogFormat; stream?: DestinationStream } = {},
): Logger {
  return pino(loggerOptions(level, options.name), options.stream ?? stdoutDestination(options.format));
}
