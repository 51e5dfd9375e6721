/** The API's one error shape, `{detail}`, and the handler that turns every failure into it. */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { isGrpcServiceError } from '@temporalio/client';
import { ArenaError, type ArenaErrorKind } from '../domain/errors';

/** Thrown by routes for a failure that is HTTP's own (a missing header, a wrong path); broken arena rules are ArenaErrors. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** The one place a broken arena rule becomes an HTTP status. */
const STATUS_OF: Record<ArenaErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
};

/** An expected failure (an ArenaError or an ApiError) as its answer; null for anything else, which is a fault. */
export function expectedFailure(err: unknown): ErrorAnswer | null {
  if (err instanceof ApiError) return { status: err.statusCode, detail: err.detail, headers: err.headers };
  if (err instanceof ArenaError) {
    const headers: Record<string, string> =
      err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) };
    return { status: STATUS_OF[err.kind], detail: err.detail, headers };
  }
  return null;
}

/** Connection-level failures of PostgreSQL: the database is down, not the request wrong. */
const DATABASE_DOWN = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P03', '08001', '08006']);

function isDatabaseDown(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return (
    (code !== undefined && DATABASE_DOWN.has(code)) ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(String((err as Error).message))
  );
}

/** The Temporal frontend cannot be reached (the SDK wraps gRPC failures in ServiceError). */
function isWorkflowServiceDown(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isGrpcServiceError(e) && (e.code === GRPC_UNAVAILABLE || e.code === GRPC_DEADLINE_EXCEEDED)) return true;
  }
  return false;
}
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_UNAVAILABLE = 14;

export function sendError(reply: FastifyReply, status: number, detail: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ detail });
}

/** What a failure means to the client: the status, a sentence to show, and any headers (Retry-After, WWW-Authenticate). */
export interface ErrorAnswer {
  status: number;
  detail: string;
  headers: Record<string, string>;
}

/** Every failure mapped to its answer; 5xx causes are logged here, with the request, and never shown. */
export function errorAnswer(err: FastifyError, request: Pick<FastifyRequest, 'log' | 'headers'>): ErrorAnswer {
  const answer = (status: number, detail: string, headers: Record<string, string> = {}) => ({
    status,
    detail,
    headers,
  });
  const expected = expectedFailure(err);
  if (expected) return expected;
  // Our validator compiler words these already (api/validation.ts); anything else is Fastify's own.
  if (err.code === 'FST_ERR_VALIDATION') return answer(400, err.message);
  // Text the database cannot store (it slipped past validation): the input's fault, not ours.
  if (['22021', '22P05'].includes((err as { code?: string }).code ?? ''))
    return answer(400, 'the request holds characters that cannot be stored');
  if (isDatabaseDown(err)) {
    request.log.error({ err }, 'database unavailable');
    return answer(503, 'the database is unavailable; try again shortly', { 'Retry-After': '5' });
  }
  if (isWorkflowServiceDown(err)) {
    request.log.error({ err }, 'workflow service unavailable');
    return answer(503, 'the workflow service is unavailable; try again shortly', { 'Retry-After': '5' });
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return answer(
        415,
        `unsupported content type ${request.headers['content-type'] ?? ''}; send application/json`.trim(),
      );
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return answer(413, 'request body is too large');
    if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return answer(
        400,
        'the body is empty but Content-Type is application/json; send a JSON object or no Content-Type',
      );
    }
    if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
      return answer(400, `malformed JSON body: ${err.message}`);
    return answer(status, err.message);
  }
  request.log.error({ err }, 'unhandled error');
  return answer(500, 'internal server error');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, detail, headers } = errorAnswer(err, request);
    reply.headers(headers);
    return sendError(reply, status, detail);
  });

  // Every method some route answers, so a known path asked the wrong way can say which ones it takes.
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) methods.add(method);
  });
  /** The methods the path answers, or null when none does (an unknown path) or this one does (a file a route lacks). */
  const allowedFor = (request: FastifyRequest): string | null => {
    const path = request.url.split('?')[0]!;
    const allowed = [...methods]
      .filter((method) => app.findRoute({ method: method as HTTPMethods, url: path }) !== null)
      .sort();
    return allowed.length === 0 || allowed.includes(request.method) ? null : allowed.join(', ');
  };
  const answerNotFound = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    const allow = allowedFor(request);
    if (!allow) return sendError(reply, 404, `no route for ${request.method} ${path}`);
    reply.header('Allow', allow);
    if (request.method === 'HEAD') return reply.code(405).send();
    return sendError(reply, 405, `${request.method} is not allowed on ${path}; it answers ${allow}`);
  };
  // Answered before any body is read: a QUERY or POST to the wrong path is a 404 or 405, not a complaint about its body.
  app.addHook('preParsing', async (request, reply) => {
    if (request.is404) return answerNotFound(request, reply);
  });
  app.setNotFoundHandler(answerNotFound);
}
