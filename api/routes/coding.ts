/**
 * The steps of a coding sandbox session, taken by the agent (not its owner): exec, read and write
 * files, submit. Each takes the session's token (`Authorization: Bearer`) or the agent's
 * `X-Arena-Secret`, and runs in the session's workspace through its workflow. The same steps are
 * MCP tools at `/mcp` (routes/mcp.ts); both call services/coding-steps.ts.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CodingDeps } from '../../services/coding-sessions';
import {
  authorizedCodingSession,
  execInSession,
  MAX_WRITE_BYTES,
  readInSession,
  submitSession,
  writeInSession,
} from '../../services/coding-steps';
import type { FastifyRequest } from 'fastify';
import { codingParams, directoryListing, execBody, execResult, filesQuery, submitResult } from '../schemas/coding';
import { errors } from '../schemas/common';

export { MAX_WRITE_BYTES } from '../../services/coding-steps';

export const codingRoutes: FastifyPluginAsyncZod<{ coding: CodingDeps }> = async (app, { coding }) => {
  const security: Array<Record<string, string[]>> = [{ sessionToken: [] }, { agentSecret: [] }];
  const db = app.orm.em;

  // A written file's text is the body as it is: plain text, or bytes read as UTF-8 (the API
  // elsewhere takes JSON only; this scope adds the two).
  const limits = { bodyLimit: MAX_WRITE_BYTES + 1 };
  app.addContentTypeParser('text/plain', { ...limits, parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('application/octet-stream', { ...limits, parseAs: 'buffer' }, (_request, body, done) =>
    done(null, (body as Buffer).toString('utf8')),
  );

  const sessionOf = async (params: z.infer<typeof codingParams>, headers: FastifyRequest['headers']) => {
    const header = headers.authorization;
    const bearer = header ? (/^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '') : undefined;
    const secret = headers['x-arena-secret'];
    return authorizedCodingSession(db, params.id, params.session_id, {
      bearer,
      agentSecret: typeof secret === 'string' ? secret : undefined,
    });
  };

  app.post(
    '/:id/sandbox/:session_id/exec',
    {
      bodyLimit: 2 * 1024 * 1024 + 200_000,
      schema: {
        summary: "Run a command in the session's workspace (isolated: no network, capped CPU, memory and output)",
        tags: ['coding sandbox'],
        security,
        params: codingParams,
        body: execBody,
        response: { 200: execResult, ...errors(400, 401, 403, 404, 409, 429, 503) },
      },
    },
    async (request) => {
      const row = await sessionOf(request.params, request.headers);
      return execInSession(db, coding, row, request.body);
    },
  );

  app.get(
    '/:id/sandbox/:session_id/files',
    {
      schema: {
        summary: 'Read a file of the workspace (its text, up to 1 MiB) or list a folder (JSON)',
        tags: ['coding sandbox'],
        security,
        params: codingParams,
        querystring: filesQuery,
        response: {
          200: z.union([z.string().describe('the file, as text/plain'), directoryListing]),
          ...errors(400, 401, 403, 404, 409, 429, 503),
        },
      },
    },
    async (request, reply) => {
      // Who asks first: a stranger learns nothing about the path rules of a session.
      const row = await sessionOf(request.params, request.headers);
      const read = await readInSession(db, coding, row, request.query.path);
      if (read.type === 'dir') {
        return reply
          .type('application/json; charset=utf-8')
          .send(directoryListing.parse({ path: read.path, entries: read.entries }));
      }
      return reply.type('text/plain; charset=utf-8').send(read.content);
    },
  );

  app.put(
    '/:id/sandbox/:session_id/files',
    {
      bodyLimit: 2 * MAX_WRITE_BYTES + 100,
      schema: {
        summary:
          'Write a file of the workspace: its text as the body (text/plain, application/octet-stream, or JSON {content})',
        tags: ['coding sandbox'],
        security,
        params: codingParams,
        querystring: filesQuery,
        body: z.union([z.string(), z.object({ content: z.string() }).strict()]),
        response: { 204: z.null().describe('written'), ...errors(400, 401, 403, 404, 409, 413, 429, 503) },
      },
    },
    async (request, reply) => {
      const row = await sessionOf(request.params, request.headers);
      const content = typeof request.body === 'string' ? request.body : request.body.content;
      await writeInSession(db, coding, row, request.query.path, content);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/:id/sandbox/:session_id/submit',
    {
      schema: {
        summary: 'Done: the hidden tests run, the session ends and its score comes back',
        tags: ['coding sandbox'],
        security,
        params: codingParams,
        response: { 200: submitResult, ...errors(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request) => {
      const row = await sessionOf(request.params, request.headers);
      return submitSession(db, coding.workflows, row);
    },
  );
};
