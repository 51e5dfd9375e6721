/** The machine-readable entry points: /openapi.json, the /.well-known documents, the agent skill and /llms.txt. */
import type { FastifyReply } from 'fastify';
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

export const wellKnownRoutes: FastifyPluginAsyncZod<{ publicUrl: string }> = async (app, { publicUrl }) => {
  const skills = loadSkills(publicUrl);
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
    async (_request, reply) => publicDocument(reply).send(app.swagger() as z.infer<typeof openapiDocument>),
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
    async (_request, reply) => publicDocument(reply).send(skillsIndex(publicUrl, skills)),
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
      async (_request, reply) => publicDocument(reply).type('text/markdown; charset=utf-8').send(skill.bytes),
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
