import type { RouteOptions } from 'fastify';
import { buildOfflineApp, type OfflineApp } from '../../support/offline-app';
import { validateOpenApi } from '../../discovery/support/validate-openapi';

/** Every route the app registers, as Fastify announces it (the app's own onRoute hooks may still mark it hidden). */
const mockRoutes: Array<RouteOptions & { prefix?: string }> = [];

jest.mock('fastify', () => {
  const actual = jest.requireActual('fastify');
  const recording = (...args: unknown[]) => {
    const app = actual(...args);
    app.addHook('onRoute', (route: RouteOptions) => void mockRoutes.push(route));
    return app;
  };
  return Object.assign(recording, actual, { default: recording, fastify: recording });
});

interface Operation {
  summary?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
}
type Document = {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, string>>; schemas: Record<string, unknown> };
};

let t: OfflineApp;
let doc: Document;
beforeAll(async () => {
  t = await buildOfflineApp();
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.json();
});
afterAll(() => t.close());

/** The path a route has in the document: `{param}` for `:param`, and a prefix's root without its trailing slash. */
function documentedPath(route: RouteOptions & { prefix?: string }): string {
  const url = route.prefix && route.url === `${route.prefix}/` ? route.prefix : route.url;
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operations(): Array<{ path: string; method: string; operation: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
  );
}

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validateOpenApi(doc);
    expect(result.errors).toBeUndefined();
    expect(result).toMatchObject({ valid: true, version: '3.1' });
  });

  it('is checked by a validator that does fail a broken document', async () => {
    const broken = { ...doc, paths: { '/x': { get: { responses: { 200: { content: {} } } } } } };
    expect((await validateOpenApi(broken)).valid).toBe(false);
  });

  it('lists every route the app serves, and nothing else', () => {
    const served = mockRoutes.filter((r) => r.method !== 'HEAD' && !r.schema?.hide);
    expect(served.length).toBeGreaterThan(30);
    const expected = new Set(served.flatMap((r) => [r.method].flat().map((m) => `${m} ${documentedPath(r)}`)));
    const documented = new Set(operations().map((o) => `${o.method} ${o.path}`));
    expect([...documented].sort()).toEqual([...expected].sort());
  });

  it('hides only the reference viewer, the website and the /docs redirect', () => {
    const hidden = mockRoutes.filter((r) => r.method !== 'HEAD' && r.schema?.hide).map((r) => r.url);
    for (const url of hidden) {
      expect(url).not.toMatch(/^\/(api|\.well-known)\//);
      expect(url).not.toMatch(/^\/(openapi\.json|llms\.txt|health)$/);
    }
  });

  it('names the public URL as its server and uses the paths clients call', () => {
    expect(doc.servers).toEqual([{ url: 'http://arena.test' }]);
    expect(doc.paths['/api/agents']).toHaveProperty('post');
    expect(doc.paths['/api/agents/']).toBeUndefined();
  });

  it('describes request and response bodies from the zod schemas', () => {
    type ObjectSchema = { properties: Record<string, unknown>; required: string[] };
    const create = doc.paths['/api/agents']!.post! as Operation & {
      requestBody: { content: Record<string, { schema: { oneOf?: ObjectSchema[]; anyOf?: ObjectSchema[] } }> };
    };
    // One form per mode, so the document says that push needs webhook_url, pull takes no address
    // and a2a needs agent_card_url.
    const forms = (create.requestBody.content['application/json']!.schema.oneOf ??
      create.requestBody.content['application/json']!.schema.anyOf)!;
    expect(forms).toHaveLength(3);
    const [push, pull, a2a] = [
      forms.find((f) => f.required.includes('webhook_url'))!,
      forms.find((f) => !f.required.includes('webhook_url') && !f.required.includes('agent_card_url'))!,
      forms.find((f) => f.required.includes('agent_card_url'))!,
    ];
    expect(a2a.required).toEqual(expect.arrayContaining(['name', 'mode', 'agent_card_url']));
    expect(Object.keys(push.properties)).toEqual(
      expect.arrayContaining([
        'name',
        'mode',
        'webhook_url',
        'owner_handle',
        'model_claimed',
        'cost_claimed',
        'tools_claimed',
        'description',
      ]),
    );
    expect(push.required).toEqual(expect.arrayContaining(['name', 'webhook_url']));
    expect(pull.required).toEqual(expect.arrayContaining(['name', 'mode']));
    const created = create.responses['201']!.content!['application/json']!.schema as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(created.properties)).toEqual(
      expect.arrayContaining(['id', 'webhook_secret', 'profile_url', 'run_command']),
    );
    expect(doc.paths['/api/agents/{id}/work/next']!.get!.responses['204']).toEqual({
      description: 'no work available',
    });
  });

  it('gives every error response the one {detail} schema', () => {
    expect(doc.components.schemas.Error).toEqual({
      type: 'object',
      properties: { detail: { type: 'string' } },
      required: ['detail'],
      additionalProperties: false,
      description: expect.any(String),
    });
    let errorResponses = 0;
    for (const { path, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description).not.toBe('Default Response');
        if (Number(status) < 400 || path === '/health') continue;
        errorResponses++;
        expect(response.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    expect(errorResponses).toBeGreaterThan(50);
  });

  it('declares the API key and the agent secret, and which routes take which', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.agentSecret).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Arena-Secret',
    });
    const securityOf = (path: string, method: string) => doc.paths[path]![method]!.security;
    expect(securityOf('/api/agents', 'post')).toEqual([{ bearerAuth: [] }]);
    expect(securityOf('/api/agents/{id}/work/next', 'get')).toEqual([{ agentSecret: [] }]);
    expect(securityOf('/api/agents/{id}/work/{work_id}/result', 'post')).toEqual([{ agentSecret: [] }]);
    expect(securityOf('/api/register', 'post')).toBeUndefined();
    // Every route behind the API key says so, and answers 401 in the document.
    for (const { path, method, operation } of operations()) {
      if (operation.security?.[0]?.bearerAuth) expect(operation.responses).toHaveProperty('401');
      if (operation.responses['401']) {
        // The public feed takes a key optionally (its owner reads more): anonymous or bearer. A coding
        // session's steps take the session's token or the agent's secret.
        const expected =
          path === '/api/agents/{id}/activity'
            ? [{}, { bearerAuth: [] }]
            : path.startsWith('/api/agents/{id}/sandbox/{session_id}/') && !path.endsWith('/cancel')
              ? [{ sessionToken: [] }, { agentSecret: [] }]
              : [{ bearerAuth: [] }];
        expect({ route: `${method} ${path}`, security: operation.security }).toEqual({
          route: `${method} ${path}`,
          security: expected,
        });
      }
    }
    expect(securityOf('/api/agents/{id}/activity', 'get')).toEqual([{}, { bearerAuth: [] }]);
    expect(doc.components.securitySchemes.sessionToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(securityOf('/api/agents/{id}/sandbox/{session_id}/exec', 'post')).toEqual([
      { sessionToken: [] },
      { agentSecret: [] },
    ]);
  });

  it('gives every operation a summary', () => {
    for (const { operation } of operations()) expect(operation.summary).toEqual(expect.any(String));
  });
});

describe('the interactive reference at /docs/reference/', () => {
  it('serves Swagger UI from the package itself, reading the same document', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/reference/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(3);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//);
      const res = await t.app.inject({
        method: 'GET',
        url: new URL(asset, 'http://arena.test/docs/reference/').pathname,
      });
      expect(res.statusCode).toBe(200);
    }
    const json = await t.app.inject({ method: 'GET', url: '/docs/reference/json' });
    expect(json.json()).toEqual(doc);
  });
});
