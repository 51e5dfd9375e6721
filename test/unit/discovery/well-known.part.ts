/**
 * The discovery documents on the app with nothing behind it: they are built from the
 * configuration and the routes, never from stored state. What reads the database or Temporal
 * (the health check, the home page, a key) is in well-known-stored.part.ts.
 */
import { createHash } from 'node:crypto';
import { buildOfflineApp, type OfflineApp } from '../../support/offline-app';
import { BASE, CATALOG_LINK, pathOf } from '../../discovery/support/catalog';

let t: OfflineApp;
beforeAll(async () => {
  t = await buildOfflineApp();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('/.well-known/api-catalog (RFC 9727)', () => {
  it('is a linkset with the API catalog profile', async () => {
    const res = await get('/.well-known/api-catalog');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(
      'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
    );
    expect(res.json()).toEqual({
      linkset: [
        {
          anchor: `${BASE}/api`,
          'service-desc': [expect.objectContaining({ href: `${BASE}/openapi.json` })],
          'service-doc': [expect.objectContaining({ href: `${BASE}/docs/` })],
          status: [expect.objectContaining({ href: `${BASE}/health` })],
        },
        {
          anchor: `${BASE}/mcp`,
          'service-doc': [expect.objectContaining({ href: `${BASE}/docs/guides/mcp-coding-session` })],
        },
      ],
    });
  });

  it('answers HEAD with the api-catalog Link and no body', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/.well-known/api-catalog' });
    expect(res.statusCode).toBe(200);
    expect(res.headers.link).toBe(CATALOG_LINK);
    expect(res.body).toBe('');
  });
});

describe('the api-catalog Link header', () => {
  it.each([
    ['an API response', 'GET', '/api/version', 200],
    ['a guide', 'GET', '/docs/guides/quick-start', 200],
    ['an error', 'GET', '/api/account', 401],
    ['an unknown route', 'GET', '/api/nope', 404],
  ] as const)('is on %s', async (_label, method, url, status) => {
    const r = await t.app.inject({ method, url });
    expect(r.statusCode).toBe(status);
    expect(r.headers.link).toBe(CATALOG_LINK);
  });
});

describe('authentication metadata', () => {
  it('names the protected resource metadata in every 401, keeping the realm', async () => {
    for (const headers of [{}, { authorization: 'Bearer arena_wrong' }, { authorization: 'Basic x' }]) {
      const r = await t.app.inject({ method: 'GET', url: '/api/agents', headers });
      expect(r.statusCode).toBe(401);
      expect(r.headers['www-authenticate']).toBe(
        `Bearer realm="arena", resource_metadata="${BASE}/.well-known/oauth-protected-resource"`,
      );
    }
  });

  it('publishes resource metadata (RFC 9728) for the resource the 401 names', async () => {
    const r = await get('/.well-known/oauth-protected-resource');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const metadata = r.json();
    expect(metadata).toEqual({
      resource: BASE,
      resource_name: expect.any(String),
      authorization_servers: [BASE],
      scopes_supported: ['agents:read', 'agents:write', 'account:read', 'account:write'],
      bearer_methods_supported: ['header'],
      resource_documentation: `${BASE}/docs/guides/quick-start`,
    });
    expect((await get(pathOf(metadata.resource_documentation))).statusCode).toBe(200);
  });

  it('publishes authorization server metadata (RFC 8414) that claims no OAuth flow', async () => {
    const r = await get('/.well-known/oauth-authorization-server');
    expect(r.statusCode).toBe(200);
    const metadata = r.json();
    expect(metadata.issuer).toBe(BASE);
    for (const endpoint of [
      'authorization_endpoint',
      'token_endpoint',
      'registration_endpoint',
      'jwks_uri',
      'introspection_endpoint',
      'revocation_endpoint',
    ]) {
      expect(metadata).not.toHaveProperty(endpoint);
    }
    // Omitted, these would default to the authorization-code and implicit grants.
    expect(metadata.grant_types_supported).toEqual([]);
    expect(metadata.response_types_supported).toEqual([]);
    expect(metadata.scopes_supported).toEqual(['agents:read', 'agents:write', 'account:read', 'account:write']);
    const docs = await get(pathOf(metadata.service_documentation));
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('/api/register');
  });
});

describe('/.well-known/agent-skills/index.json (agent-skills discovery v0.2.0)', () => {
  it('lists each skill with the SHA-256 of the exact bytes served at its url', async () => {
    const r = await get('/.well-known/agent-skills/index.json');
    expect(r.statusCode).toBe(200);
    const index = r.json();
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.skills.length).toBeGreaterThan(0);
    for (const skill of index.skills) {
      expect(skill).toEqual({
        name: expect.stringMatching(/^[a-z0-9]+(-[a-z0-9]+)*$/),
        type: 'skill-md',
        description: expect.any(String),
        url: expect.any(String),
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      });
      const served = await get(pathOf(skill.url));
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toMatch(/^text\/markdown/);
      expect(`sha256:${createHash('sha256').update(served.rawPayload).digest('hex')}`).toBe(skill.digest);
      // The SKILL.md front matter agrees with the index.
      expect(served.body).toMatch(
        new RegExp(`^---\\nname: ${skill.name}\\ndescription: ${escapeRegExp(skill.description)}\\n---\\n`),
      );
    }
  });

  it('teaches registering, creating the agent and answering by push and by pull, at this address', async () => {
    const skill = (await get('/.well-known/agent-skills/agent-arena/SKILL.md')).body;
    for (const step of ['/api/register', '/api/agents', 'work/next', 'X-Arena-Secret', 'X-Arena-Signature', '/retest'])
      expect(skill).toContain(step);
    expect(skill).toContain(`${BASE}/api/register`);
    expect(skill).not.toContain('localhost:3000');
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('GET /api/version', () => {
  it('says exactly how push and pull work', async () => {
    const body = (await get('/api/version')).json();
    expect(body).toMatchObject({ version: 1, connection_modes: ['push', 'pull', 'a2a'], docs_url: '/docs/' });
    expect(body.push.summary).toMatch(/HMAC-SHA256\(webhook_secret, raw body bytes\)/);
    expect(body.push.summary).toMatch(/never sent again/);
    expect(body.push.summary).toMatch(/ping/);
    expect(body.push.response).toMatch(/\{"response": /);
    expect(body.push.signature_header).toBe('X-Arena-Signature');
    expect(body.pull.summary).toMatch(/204/);
    expect(body.pull.summary).toMatch(/409/);
    expect(body.pull.auth).toMatch(/^X-Arena-Secret: /);
    expect(body.pull.next_work).toContain(`${BASE}/api/agents/<id>/work/next?wait=25`);
    expect(body.pull.submit_result).toContain(`${BASE}/api/agents/<id>/work/<work_id>/result`);
  });
});

describe('HEAD on every discovery document', () => {
  it.each([
    '/openapi.json',
    '/.well-known/api-catalog',
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-authorization-server',
    '/.well-known/agent-skills/index.json',
    '/.well-known/agent-skills/agent-arena/SKILL.md',
    '/llms.txt',
    '/docs/',
    '/docs/guides/quick-start',
    '/docs/guides/quick-start.md',
    '/docs/reference/',
    '/api/version',
    '/downloads/',
  ])('%s', async (url) => {
    const [head, full] = await Promise.all([t.app.inject({ method: 'HEAD', url }), get(url)]);
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-type']).toBe(full.headers['content-type']);
    expect(head.headers.link).toBe(CATALOG_LINK);
  });
});
