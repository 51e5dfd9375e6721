/** The machine-readable entry points: /openapi.json, the /.well-known documents, the agent skill and /llms.txt. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  API_CATALOG_MEDIA_TYPE,
  API_CATALOG_PATH,
  apiCatalog,
  apiCatalogSchema,
  AUTHORIZATION_SERVER_PATH,
  authorizationServer,
  authorizationServerSchema,
  PROTECTED_RESOURCE_PATH,
  protectedResource,
  protectedResourceSchema,
  SKILLS_INDEX_PATH,
  skillsIndexSchema,
} from './documents';
import { llmsTxt } from './llms-txt';
import { loadSkills, skillPath, skillsIndex } from './skills';
import { boardCategories } from '../../services/leaderboards';
import { requestBase, type BaseUrlSettings } from '../request-base';

/** Public documents: cacheable, and readable by browser-based tools on other origins. */
function publicDocument(reply: FastifyReply): FastifyReply {
  return reply.header('Cache-Control', 'public, max-age=300').header('Access-Control-Allow-Origin', '*');
}

const openapiDocument = z
  .looseObject({
    openapi: z.string(),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .describe('The OpenAPI 3.1 document');

/** The routes whose `category` names a board: the document lists the boards there are as it is served. */
const BOARD_ROUTES = ['/api/leaderboard', '/api/leaderboard/style'];

interface Parameter {
  name: string;
  in: string;
  schema?: Record<string, unknown>;
}

/**
 * The document with the leaderboards' `category` parameter as the enum of the arena's boards now
 * (the pool's categories and `live`): a client generated from it sends only categories the API
 * takes. Copied where it changes, so the generated document stays as it was.
 */
export function withBoardCategories<T extends { paths: Record<string, unknown> }>(doc: T, categories: string[]): T {
  const paths = { ...doc.paths };
  for (const route of BOARD_ROUTES) {
    const item = paths[route] as { get?: { parameters?: Parameter[] } } | undefined;
    if (!item?.get?.parameters) continue;
    const parameters = item.get.parameters.map((p) =>
      p.in === 'query' && p.name === 'category'
        ? {
            ...p,
            schema: { ...p.schema, enum: categories },
            description: `${(p.schema?.description as string | undefined) ?? 'a board'}; the boards now: ${categories.join(', ')}`,
          }
        : p,
    );
    paths[route] = { ...item, get: { ...item.get, parameters } };
  }
  return { ...doc, paths };
}

export const wellKnownRoutes: FastifyPluginAsyncZod<BaseUrlSettings> = async (app, settings) => {
  const { publicUrl } = settings;
  const skills = loadSkills(publicUrl);
  // A skill is served byte for byte as the index's digest covers it, so with no public URL set each
  // base the arena is reached at gets its own copy, digest and all (a few, kept).
  const skillsByBase = new Map<string, ReturnType<typeof loadSkills>>([[publicUrl, skills]]);
  const skillsFor = (request: FastifyRequest) => {
    const base = requestBase(request, settings);
    let found = skillsByBase.get(base);
    if (!found) {
      found = loadSkills(base);
      if (skillsByBase.size < 16) skillsByBase.set(base, found);
    }
    return { base, skills: found };
  };
  const tags = ['discovery'];

  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This API described in OpenAPI 3.1, generated from the schemas that validate requests',
        tags,
        response: { 200: openapiDocument },
      },
    },
    async (request, reply) => {
      const doc = app.swagger() as z.infer<typeof openapiDocument>;
      // The description stays readable while the database does not answer: then without the boards' list.
      const categories = await boardCategories(request.em).catch((err: unknown) => {
        request.log.warn({ err }, 'the OpenAPI document is served without the boards: the database did not answer');
        return undefined;
      });
      return publicDocument(reply).send(categories ? withBoardCategories(doc, categories) : doc);
    },
  );

  app.get(
    API_CATALOG_PATH,
    {
      schema: {
        summary: 'API catalog (RFC 9727): links to the OpenAPI description, the docs and the health check',
        tags,
        response: {
          200: { description: 'A linkset', content: { 'application/linkset+json': { schema: apiCatalogSchema } } },
        },
      },
      // Fastify adds `charset` to every JSON type; RFC 9727 names the media type with its profile only.
      onSend: async (_request, reply, payload) => {
        reply.header('content-type', API_CATALOG_MEDIA_TYPE);
        return payload;
      },
    },
    async (_request, reply) => publicDocument(reply).type(API_CATALOG_MEDIA_TYPE).send(apiCatalog(publicUrl)),
  );

  app.get(
    PROTECTED_RESOURCE_PATH,
    {
      schema: {
        summary: 'OAuth protected resource metadata (RFC 9728): bearer API keys and the logical scopes',
        tags,
        response: { 200: protectedResourceSchema },
      },
    },
    async (_request, reply) => publicDocument(reply).send(protectedResource(publicUrl)),
  );

  app.get(
    AUTHORIZATION_SERVER_PATH,
    {
      schema: {
        summary:
          'Authorization server metadata (RFC 8414): no OAuth flow is offered; API keys come from POST /api/register',
        tags,
        response: { 200: authorizationServerSchema },
      },
    },
    async (_request, reply) => publicDocument(reply).send(authorizationServer(publicUrl)),
  );

  app.get(
    SKILLS_INDEX_PATH,
    {
      schema: {
        summary: 'Agent skills index (agent-skills discovery v0.2.0) with SHA-256 digests',
        tags,
        response: { 200: skillsIndexSchema },
      },
    },
    async (request, reply) => {
      const { base, skills: copy } = skillsFor(request);
      return publicDocument(reply).send(skillsIndex(base, copy));
    },
  );

  for (const skill of skills.values()) {
    app.get(
      skillPath(skill.name),
      {
        schema: {
          summary: `Agent skill ${skill.name}: ${skill.description}`,
          tags,
          response: {
            200: {
              description: 'The SKILL.md, byte for byte what the index digest covers',
              content: { 'text/markdown': { schema: z.string() } },
            },
          },
        },
      },
      async (request, reply) =>
        publicDocument(reply)
          .type('text/markdown; charset=utf-8')
          .send(skillsFor(request).skills.get(skill.name)!.bytes),
    );
  }

  const llms = llmsTxt(publicUrl);
  app.get(
    '/llms.txt',
    {
      schema: {
        summary: 'A compact index of this site for language models (llms.txt)',
        tags,
        response: { 200: { description: 'Markdown index', content: { 'text/plain': { schema: z.string() } } } },
      },
    },
    async (_request, reply) => publicDocument(reply).type('text/plain; charset=utf-8').send(llms),
  );
};
