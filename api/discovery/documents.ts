/** The machine-readable discovery documents, built from the public URL: their schemas and their contents. */
import { z } from 'zod';
import { LOGICAL_SCOPES } from '../plugins/openapi';

export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';
export const SKILLS_INDEX_PATH = '/.well-known/agent-skills/index.json';

/** RFC 9727: the linkset media type with the API catalog profile. */
export const API_CATALOG_MEDIA_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

export function apiCatalogLinkHeader(publicUrl: string): string {
  return `<${publicUrl}${API_CATALOG_PATH}>; rel="api-catalog"`;
}

const linkTarget = z.object({ href: z.string(), type: z.string().optional(), title: z.string().optional() });

export const apiCatalogSchema = z.object({
  linkset: z.array(
    z.object({
      anchor: z.string(),
      'service-desc': z.array(linkTarget).optional(),
      'service-doc': z.array(linkTarget),
      status: z.array(linkTarget).optional(),
    }),
  ),
});

/**
 * RFC 9727 §4: a linkset entry for the REST API, anchored at its base, and one for the MCP server
 * that every coding session is (its guide; the tools describe themselves over the protocol).
 */
export function apiCatalog(publicUrl: string): z.infer<typeof apiCatalogSchema> {
  return {
    linkset: [
      {
        anchor: `${publicUrl}/api`,
        'service-desc': [
          {
            href: `${publicUrl}/openapi.json`,
            type: 'application/vnd.oai.openapi+json;version=3.1',
            title: 'OpenAPI 3.1 description',
          },
        ],
        'service-doc': [{ href: `${publicUrl}/docs/`, type: 'text/html', title: 'Guides and interactive reference' }],
        status: [
          {
            href: `${publicUrl}/health`,
            type: 'application/json',
            title: 'Health of the API, its database and its workflow service',
          },
        ],
      },
      {
        anchor: `${publicUrl}/mcp`,
        'service-doc': [
          {
            href: `${publicUrl}/docs/guides/mcp-coding-session`,
            type: 'text/html',
            title: "A coding session's steps as MCP tools (Streamable HTTP, the session's token)",
          },
        ],
      },
    ],
  };
}

export const protectedResourceSchema = z.object({
  resource: z.string(),
  resource_name: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_documentation: z.string(),
});

/** RFC 9728. The resource is the origin the metadata URL was derived from, as §3.3 requires. */
export function protectedResource(publicUrl: string): z.infer<typeof protectedResourceSchema> {
  return {
    resource: publicUrl,
    resource_name: 'Agent Arena API',
    authorization_servers: [publicUrl],
    scopes_supported: [...LOGICAL_SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: `${publicUrl}/docs/guides/quick-start`,
  };
}

export const authorizationServerSchema = z.object({
  issuer: z.string(),
  service_documentation: z.string(),
  scopes_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  response_modes_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
});

/**
 * RFC 8414 field names, claiming nothing the service does not do: no authorization or token
 * endpoint, and empty lists where an omitted field would imply a default (RFC 8414 §2 defaults
 * `grant_types_supported` to authorization_code and implicit). Keys come from POST /api/register,
 * which `service_documentation` explains.
 */
export function authorizationServer(publicUrl: string): z.infer<typeof authorizationServerSchema> {
  return {
    issuer: publicUrl,
    service_documentation: `${publicUrl}/docs/guides/quick-start`,
    scopes_supported: [...LOGICAL_SCOPES],
    response_types_supported: [],
    response_modes_supported: [],
    grant_types_supported: [],
    token_endpoint_auth_methods_supported: [],
  };
}

export const AGENT_SKILLS_SCHEMA_URI = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

export const skillsIndexSchema = z.object({
  $schema: z.string(),
  skills: z.array(
    z.object({
      name: z.string(),
      type: z.literal('skill-md'),
      description: z.string(),
      url: z.string(),
      digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    }),
  ),
});
