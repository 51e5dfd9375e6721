/**
 * What every request gets before any route: an id (the caller's `X-Request-Id` when it is a plain
 * token, else a UUID) echoed in the answer, router failures in the `{detail}` shape, JSON as the
 * only body type outside the website's forms, and bodies refused that are nested too deeply to
 * walk or hold NUL characters, which PostgreSQL cannot store.
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

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route runs, without echoing the URL.
 * An over-long parameter is a 400 like any parameter that breaks its rule: every documented one is
 * at most 100 characters, the router's limit, which it checks before the route's schema can.
 */
export function routerError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  void sendError(
    reply,
    400,
    tooLong ? 'a path parameter is longer than 100 characters' : 'the URL is not valid (bad percent-encoding)',
  );
}

/** How many levels of arrays and objects a JSON body may have; real bodies use two or three. */
export const MAX_JSON_DEPTH = 64;

type Finding = { kind: 'nul'; field: string } | { kind: 'too-deep' } | null;

/**
 * The first string or key holding a NUL character (its field, `tools_claimed.1`), or a nesting
 * past MAX_JSON_DEPTH. A loop with its own stack, not recursion: a body 100,000 levels deep once
 * overflowed the call stack.
 */
function inspect(root: unknown): Finding {
  const stack: Array<{ value: unknown; field: string; depth: number }> = [{ value: root, field: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, field, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { kind: 'nul', field };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > MAX_JSON_DEPTH) return { kind: 'too-deep' };
    const entries = Object.entries(value);
    // Pushed last to first, so fields are looked at in the order they were sent.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, inner] = entries[i]!;
      if (key.includes('\u0000')) return { kind: 'nul', field };
      stack.push({ value: inner, field: field ? `${field}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}

const PART_NAMES = { query: 'the query string', params: 'the path', body: 'the body' } as const;

export const requestHygienePlugin = fp(
  async (app: FastifyInstance) => {
    // Fastify reads text/plain bodies as strings by default; the API speaks JSON only, so any
    // other type is a 415 (the website adds its form bodies inside its own scope).
    app.removeContentTypeParser('text/plain');
    // Depth before validation, so no schema walks a body 100,000 levels deep.
    app.addHook('preValidation', async (request) => {
      if (inspect(request.body)?.kind === 'too-deep')
        throw new ApiError(400, `the JSON body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`);
    });
    // NUL after validation: the schemas drop fields they do not know, and what is dropped is never
    // stored, so only what a route keeps is refused (the document's string patterns say the same).
    app.addHook('preHandler', async (request) => {
      for (const where of ['query', 'params', 'body'] as const) {
        const found = inspect(request[where]);
        if (found?.kind === 'nul')
          throw new ApiError(400, `${found.field || PART_NAMES[where]} must not contain NUL (\\u0000) characters`);
      }
    });
    app.addHook('onSend', async (request, reply) => {
      reply.header('X-Request-Id', request.id);
    });
  },
  { name: 'request-hygiene' },
);
