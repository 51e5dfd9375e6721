/**
 * `POST /mcp`: a coding session's steps as MCP tools, over the Streamable HTTP transport. The
 * session's token (`Authorization: Bearer`) is the only credential and names the session. Stateless:
 * each request gets a server and transport of its own, so any API process answers any call, as for
 * the REST steps; answers stream as server-sent events, so a long step can send progress first.
 * GET and DELETE (a stream of the server's own, ending a protocol session) have nothing to serve
 * without sessions: the app's handler answers them 405 with `{detail}`.
 */
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ArenaError } from '../../domain/errors';
import type { CodingDeps } from '../../services/coding-sessions';
import { cancelClientCall, codingSessionOfToken } from '../../services/coding-steps';
import { ApiError, errorAnswer } from '../errors';
import { clientRefOf, codingSessionServer } from '../mcp/coding-tools';

export const MCP_PATH = '/mcp';

/** Within the 10 to 15 s the guide promises: well inside a client's default 60 s request timeout. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 10_000;

/**
 * How often an answer's event stream carries a comment while a step runs: inside the shortest read
 * timeout of a common client's defaults (httpx's 5 s), so no client takes a long step's silence for
 * a dropped stream.
 */
export const DEFAULT_KEEP_ALIVE_MS = 4_000;

export interface McpRouteOptions {
  coding: CodingDeps;
  /** How often a running step sends progress to a client that asked for it; tests shorten it. */
  progressIntervalMs?: number;
  /** How often a stream carries a keep-alive comment; tests shorten it. */
  keepAliveMs?: number;
}

/** The requests a `notifications/cancelled` in this body names (a message, or a batch of them). */
function cancelledRequestIds(body: unknown): Array<string | number> {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) => {
    const m = message as { method?: unknown; params?: { requestId?: unknown } } | null;
    const id = m?.method === 'notifications/cancelled' ? m.params?.requestId : undefined;
    return typeof id === 'string' || typeof id === 'number' ? [id] : [];
  });
}

const JSON_TYPE = 'application/json; charset=utf-8';

export const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (
  app,
  { coding, progressIntervalMs = DEFAULT_PROGRESS_INTERVAL_MS, keepAliveMs = DEFAULT_KEEP_ALIVE_MS },
) => {
  const db = app.orm.em;

  app.post(
    MCP_PATH,
    {
      // As the REST exec takes: a command and 1 MiB of stdin, or a file of 1 MiB, as JSON.
      bodyLimit: 2 * 1024 * 1024 + 200_000,
      // JSON-RPC, not a REST resource: the guide documents it, not the OpenAPI description.
      schema: { hide: true },
    },
    async (request, reply) => {
      const header = request.headers.authorization;
      const token = header ? (/^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '') : undefined;
      let row;
      try {
        row = await codingSessionOfToken(db, token);
      } catch (err) {
        // No pointer to the API keys' metadata: this is a session token, and there is no flow that gets one.
        if (err instanceof ArenaError && err.kind === 'unauthenticated')
          throw new ApiError(401, err.detail, { 'WWW-Authenticate': 'Bearer realm="arena"' });
        throw err;
      }

      // Stateless: the cancellation of a call comes as a request of its own, perhaps to another API
      // process than the call's. The call's step is found by the request id it was asked with.
      for (const id of cancelledRequestIds(request.body))
        await cancelClientCall(db, coding.workflows, row, clientRefOf(id));

      const server = codingSessionServer({
        em: db,
        coding,
        row,
        progressIntervalMs,
        answerOf: (err) => errorAnswer(err as FastifyError, request),
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: false,
        keepAliveMs,
      });
      await server.connect(transport);
      const res = reply.raw;
      // Closing the server closes its transport; a step still running is recorded all the same.
      res.on('close', () => void server.close());

      // A hijacked reply skips Fastify's onSend hooks: what they would add goes on the response now
      // (the security headers are on it already, set as the request arrived).
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) res.setHeader(name, value);
      res.setHeader('X-Request-Id', request.id);
      reply.hijack();
      try {
        await transport.handleRequest(request.raw, res, request.body);
      } catch (err) {
        request.log.error({ err }, 'the MCP transport failed');
        if (res.headersSent) res.end();
        else res.writeHead(500, { 'content-type': JSON_TYPE }).end(JSON.stringify({ detail: 'internal server error' }));
      }
    },
  );
};
