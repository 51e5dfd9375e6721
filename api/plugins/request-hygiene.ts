/**
 * What every request gets before any route: an id (the caller's `X-Request-Id` when it is a plain
 * token, else a UUID) echoed in the answer, router failures in the `{detail}` shape, and text
 * holding NUL characters refused, since PostgreSQL cannot store them.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, sendError } from '../errors';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Fastify's `genReqId`: ties our log lines to the caller's. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Fastify's `frameworkErrors`: what the router refuses before any route runs, without echoing the URL. */
export function routerError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  void sendError(reply, tooLong ? 414 : 400, tooLong ? 'a path parameter is longer than 100 characters' : 'the URL is not valid (bad percent-encoding)');
}

/** The path of the first string (or key) holding a NUL character, or null. */
function nulField(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('\u0000')) return path;
    const found = nulField(inner, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

export const requestHygienePlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('preValidation', async (request) => {
      for (const [where, value] of [['query', request.query], ['params', request.params], ['body', request.body]] as const) {
        const field = nulField(value, where);
        if (field) throw new ApiError(400, `${field}: must not contain NUL (\\u0000) characters`);
      }
    });
    app.addHook('onSend', async (request, reply) => {
      reply.header('X-Request-Id', request.id);
    });
  },
  { name: 'request-hygiene' },
);
