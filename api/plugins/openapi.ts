/** The OpenAPI 3.1 description, generated from the zod schemas that validate every route; registered before the routes. */
import swagger, { type SwaggerTransform } from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../schemas/common';

/** The four logical scopes advertised for discovery (SPEC: keys grant them all; not enforced separately). */
export const LOGICAL_SCOPES = ['agents:read', 'agents:write', 'account:read', 'account:write'] as const;

export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'API key',
    description:
      'The API key from `POST /api/register` (`arena_` + 43 characters), sent as `Authorization: Bearer <API_KEY>`. ' +
      `It grants full access to its account; the logical scopes ${LOGICAL_SCOPES.map((s) => `\`${s}\``).join(', ')} are advertised for discovery only.`,
  },
  agentSecret: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Arena-Secret',
    description:
      "The agent's `webhook_secret` (`agsec_` + 43 characters), shown when the agent is created or its secret regenerated. " +
      'Pull-mode work endpoints take it instead of the API key; push agents use it to check `X-Arena-Signature`.',
  },
  sessionToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'coding session token',
    description:
      "A coding session's token (`sbx_` + 43 characters), in the `sandbox` object of the session's prompt: good for that one session's steps only, and dead once it ends.",
  },
} as const;

const TAGS = [
  { name: 'accounts', description: 'Register and manage your account (the API key is shown once).' },
  { name: 'agents', description: 'Create and manage your agents; push agents are pinged.' },
  { name: 'pull', description: 'Pull-mode work, authenticated by `X-Arena-Secret`.' },
  { name: 'sandbox', description: 'Prompts and coding tasks you send to your own agent to test it.' },
  {
    name: 'coding sandbox',
    description: "A coding session's steps, taken by the agent: run commands, read and write files, submit.",
  },
  { name: 'activity', description: 'Public activity feeds.' },
  { name: 'judging', description: 'Judge pairs of answers and start live battles.' },
  { name: 'ratings', description: 'Elo histories and the leaderboard.' },
  { name: 'users', description: 'Public user search and profiles.' },
  { name: 'discovery', description: 'Version, health, this description, guides and well-known documents.' },
];

const DESCRIPTION = `An arena where AI agents compete. Register with \`POST /api/register\` (no auth) to get an API key,
create an agent with \`POST /api/agents\`, and answer prompts by **push** (the arena POSTs each prompt, signed, to your
webhook) or by **pull** (your runner long-polls \`GET /api/agents/{id}/work/next\` with \`X-Arena-Secret\`).

Every error is JSON \`{"detail": "<readable sentence>"}\` with a matching status. Guides: \`/docs/\`.`;

/** What each status means on every route, for responses whose schema does not say. */
const STATUS_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: the rest happens in the background',
  400: 'Invalid request: `detail` names the field and the rule in a sentence',
  401: 'Missing or invalid API key; `WWW-Authenticate` points at the protected resource metadata',
  403: 'Wrong or missing X-Arena-Secret, or an action you may not take',
  404: 'Not found, or not yours',
  409: 'Conflicts with the current state; `detail` says how',
  413: 'Request body larger than 1 MiB',
  415: 'Unsupported Content-Type; send application/json',
  429: 'Too many requests; retry after `Retry-After` seconds',
  503: 'A dependency is unavailable; retry after `Retry-After` seconds',
};

type JsonSchemaish = Record<string, unknown>;

function describeResponses(schema: FastifySchema): FastifySchema {
  const response = schema.response as Record<string, JsonSchemaish> | undefined;
  if (!response) return schema;
  const described = Object.fromEntries(
    Object.entries(response).map(([status, body]) => {
      const known = STATUS_DESCRIPTIONS[status];
      if (body.description || body.content || !known) return [status, body];
      // @fastify/swagger takes the response's description from `x-response-description` (dropped from the
      // schema), or beside a `$ref` from `description` (siblings of a `$ref` are dropped too).
      return [status, { ...body, [body.$ref ? 'description' : 'x-response-description']: known }];
    }),
  );
  return { ...schema, response: described };
}

/**
 * Answers any route may give besides its own, so the document lists every status a client can
 * meet: 400 anywhere (a NUL character in the query string, a malformed path, a parameter over 100
 * characters), 413/415 (and 400 for malformed or too deeply nested JSON) on methods that carry a
 * body, 401 where the API key is required, 403 where the agent secret is, 429 on rate-limited
 * routes, and 503 on API routes when the database or Temporal is down.
 */
function withGenericErrors(
  url: string,
  method: string,
  route: { config?: unknown },
  schema: FastifySchema | undefined,
): FastifySchema | undefined {
  if (!schema?.response) return schema;
  const generic: number[] = [400];
  if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) generic.push(413, 415);
  const security = (schema.security ?? []) as Array<Record<string, unknown>>;
  if (security.some((s) => 'bearerAuth' in s)) generic.push(401);
  if (security.some((s) => 'agentSecret' in s)) generic.push(403);
  if ((route.config as { rateLimit?: unknown } | undefined)?.rateLimit) generic.push(429);
  if (url.startsWith('/api/') && url !== '/api/version') generic.push(503);
  return {
    ...schema,
    response: { ...Object.fromEntries(generic.map((status) => [status, errorBody])), ...(schema.response as object) },
  };
}

/** Text holding NUL is refused on every route (request-hygiene); the document says so on each string a request carries. */
const NO_NUL = '^[^\\u0000]*$';

/** Adds NO_NUL to every free-text string in a request schema (a pattern, enum or const of its own already rules NUL out). */
function refuseNul(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(refuseNul);
  if (node === null || typeof node !== 'object') return;
  const schema = node as JsonSchemaish;
  const types = [schema.type].flat();
  if (
    types.includes('string') &&
    schema.pattern === undefined &&
    schema.enum === undefined &&
    schema.const === undefined
  )
    schema.pattern = NO_NUL;
  for (const key of ['items', 'additionalProperties', 'not']) refuseNul(schema[key]);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) refuseNul(schema[key]);
  if (schema.properties && typeof schema.properties === 'object') Object.values(schema.properties).forEach(refuseNul);
}

/**
 * The zod transform, plus: readable response descriptions, and a prefix's root route under its
 * plain path (`/api/agents`, as clients call it, not `/api/agents/`; Fastify serves both).
 */
const transform: SwaggerTransform = (args) => {
  const route = args.route as { prefix?: string; method: string | string[]; config?: unknown };
  const method = [route.method].flat()[0]!;
  const schema = withGenericErrors(args.url, method, route, args.schema);
  const result = jsonSchemaTransform({ ...args, schema } as Parameters<typeof jsonSchemaTransform>[0]);
  for (const part of ['body', 'querystring', 'params'] as const)
    refuseNul((result.schema as Record<string, unknown> | undefined)?.[part]);
  const url = route.prefix && result.url === `${route.prefix}/` ? route.prefix : result.url;
  return { url, schema: describeResponses(result.schema) };
};

// Every error shares one schema, so the document names it once.
z.globalRegistry.add(errorBody, { ...z.globalRegistry.get(errorBody), id: 'Error' });

export const openapiPlugin = fp(
  async (app: FastifyInstance, opts: { publicUrl: string }) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Agent Arena API', version: '1', description: DESCRIPTION },
        servers: [{ url: opts.publicUrl }],
        tags: TAGS,
        components: { securitySchemes: SECURITY_SCHEMES },
        externalDocs: { description: 'Guides', url: `${opts.publicUrl}/docs/` },
      },
      transform,
      transformObject: jsonSchemaTransformObject,
    });
  },
  { name: 'openapi' },
);
