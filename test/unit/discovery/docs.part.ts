import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GUIDES, GUIDES_DIR, loadGuides } from '../../../api/discovery/guides';
import { renderMarkdown } from '../../../api/discovery/markdown';
import { runnerTarball } from '../../../domain/runner-download';
import { RUNNER_VERSION } from '../../../infra/runner-package';
import { prefersMarkdown } from '../../../api/discovery/negotiation';
import { buildOfflineApp, type OfflineApp } from '../../support/offline-app';
import { shellBlocks } from '../../discovery/support/curl';

const BASE = 'http://arena.test';

const ROOT = path.join(__dirname, '..', '..', '..');

let t: OfflineApp;
let downloads: string;
beforeAll(async () => {
  // The runner the docs link, as the build would pack it; the bytes are another test's concern.
  downloads = mkdtempSync(path.join(tmpdir(), 'arena-docs-downloads-'));
  writeFileSync(path.join(downloads, runnerTarball(RUNNER_VERSION)), 'runner');
  t = await buildOfflineApp({}, { downloadsDir: downloads });
});
afterAll(async () => {
  await t.close();
  rmSync(downloads, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('the guides', () => {
  it('are rendered to HTML when first asked for, once each, not at start', () => {
    const rendered: string[] = [];
    const guides = loadGuides(BASE, GUIDES_DIR, (markdown) => {
      rendered.push(markdown);
      return renderMarkdown(markdown);
    });
    expect(rendered).toEqual([]);
    const first = guides.get(GUIDES[0]!.name)!;
    expect(first.html).toBe(renderMarkdown(first.markdown));
    expect(first.html).toBe(renderMarkdown(first.markdown));
    expect(rendered).toEqual([first.markdown]);
  });

  it('are the Markdown files under docs/guides, each listed once', () => {
    const files = readdirSync(GUIDES_DIR)
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3));
    expect(GUIDES.map((g) => g.name).sort()).toEqual(files.sort());
  });

  it.each(GUIDES.filter((g) => g.audience === 'users').map((g) => g.name))(
    '%s cites nothing a reader of the site does not have (files of the source tree, links out of the guides)',
    (name) => {
      const text = readFileSync(path.join(GUIDES_DIR, `${name}.md`), 'utf8');
      const sourcePaths =
        /`(?:\.\.?\/)*(?:examples|test|infra|api|domain|services|workflows|activities|bench|docs|runner|cli|sandbox-tasks|worker)\/[^`]*`/g;
      expect(text.match(sourcePaths) ?? []).toEqual([]);
      // Relative links stay among the served guides: `other.md` or `other.md#part`, never `../`.
      const relative = [...text.matchAll(/\]\((?!https?:|#|\/)([^)#\s]*)/g)].map((m) => m[1]!);
      for (const target of relative) expect(GUIDES.map((g) => `${g.name}.md`)).toContain(target);
    },
  );

  it('are listed apart for users and for operators, on the docs root and in llms.txt (operators under Optional)', async () => {
    const root = (await get('/docs/', { accept: 'text/markdown' })).body;
    const llms = (await get('/llms.txt')).body;
    for (const [text, operatorsHeading] of [
      [root, '## For operators'],
      [llms, '## Optional'],
    ] as const) {
      const split = text.indexOf(operatorsHeading);
      expect(split).toBeGreaterThan(0);
      for (const { name, audience } of GUIDES) {
        const at = text.indexOf(`/docs/guides/${name}`);
        expect(at).toBeGreaterThan(0);
        expect(audience === 'operators' ? at > split : at < split).toBe(true);
      }
    }
  });

  it.each(GUIDES.map((g) => g.name))('%s is HTML, and Markdown at .md or on Accept: text/markdown', async (name) => {
    const html = await get(`/docs/guides/${name}`);
    expect(html.statusCode).toBe(200);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.headers.vary).toContain('Accept');
    expect(html.body).toMatch(/^<!doctype html>/);
    expect(html.body).toContain(`<link rel="alternate" type="text/markdown" href="${BASE}/docs/guides/${name}.md">`);

    const md = await get(`/docs/guides/${name}.md`);
    expect(md.statusCode).toBe(200);
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(md.body).toMatch(/^# /);

    const negotiated = await get(`/docs/guides/${name}`, { accept: 'text/markdown' });
    expect(negotiated.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(negotiated.body).toBe(md.body);

    const browser = await get(`/docs/guides/${name}`, {
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    });
    expect(browser.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('name this arena by its public URL', async () => {
    for (const { name } of GUIDES) {
      const md = (await get(`/docs/guides/${name}.md`)).body;
      expect(md).not.toContain('localhost:3000');
    }
    expect((await get('/docs/guides/quick-start.md')).body).toContain(`curl -s -X POST ${BASE}/api/register`);
  });

  it('render without raw HTML, with ids on headings and links between guides', async () => {
    const html = (await get('/docs/guides/quick-start')).body;
    expect(html).toContain('<h2 id="1-register">1. Register</h2>');
    expect(html).toContain('<a href="pull-mode">');
    expect(html).not.toContain('<script');
  });

  it('answers 404 with {detail} for an unknown guide', async () => {
    const res = await get('/docs/guides/nope');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: `no guide named nope; the guides are listed at ${BASE}/docs/` });
  });

  it('include a guide for agents that shows every API route with an example', async () => {
    const guide = (await get('/docs/guides/for-agents.md')).body;
    const doc = (await get('/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
    const apiRoutes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/') || path === '/health')
      .flatMap(([path, item]) => Object.keys(item).map((method) => ({ method: method.toUpperCase(), path })));
    expect(apiRoutes.length).toBeGreaterThan(25);
    const examples = shellBlocks(guide).map((block) => block.replace(/\\\n\s*/g, ' '));
    for (const { method, path } of apiRoutes) {
      // `/api/agents/{id}/work/{work_id}/result` is shown as `/api/agents/7/work/gym-12/result`, and so on.
      const shape = new RegExp(`${BASE.replace(/\./g, '\\.')}${path.replace(/\{[^}]+\}/g, '[^/?"\\s]+')}(?=[?"\\s]|$)`);
      const example = examples.find(
        (e) => shape.test(e) && (method === 'GET' ? !/-X (POST|PATCH)/.test(e) : e.includes(`-X ${method}`)),
      );
      expect({ route: `${method} ${path}`, example: example !== undefined }).toEqual({
        route: `${method} ${path}`,
        example: true,
      });
      expect(guide).toContain(`\`${method} ${path}`);
    }
  });
});

describe('/docs/', () => {
  it('is the documentation root, linking the guides and the reference', async () => {
    const res = await get('/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const { name } of GUIDES) expect(res.body).toContain(`href="${BASE}/docs/guides/${name}"`);
    expect(res.body).toContain(`href="${BASE}/docs/reference/"`);
    expect(res.body).toContain(`href="${BASE}/openapi.json"`);
    const md = await get('/docs/', { accept: 'text/markdown' });
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(md.body).toMatch(/^# Agent Arena documentation\n/);
    expect((await get('/docs/guides/')).body).toBe(res.body);
  });

  it('redirects /docs to /docs/', async () => {
    const res = await get('/docs');
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/docs/');
  });
});

describe('/llms.txt', () => {
  it('is an H1, a blockquote summary and H2 sections of "- [name](url): note" links', async () => {
    const res = await get('/llms.txt');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const lines = res.body.split('\n');
    expect(lines[0]).toBe('# Agent Arena');
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^> \S/);
    expect(lines.filter((l) => l.startsWith('# '))).toHaveLength(1);
    const sections = lines.filter((l) => l.startsWith('## ')).map((l) => l.slice(3));
    expect(sections).toEqual(['Guides', 'API', 'Discovery', 'Optional']);
    const firstSection = lines.findIndex((l) => l.startsWith('## '));
    const listItems = lines.slice(firstSection).filter((l) => l.startsWith('- '));
    expect(listItems.length).toBeGreaterThan(15);
    for (const item of listItems) expect(item).toMatch(/^- \[[^\]]+\]\(http:\/\/arena\.test\/[^)\s]*\): \S/);
    for (const { name } of GUIDES) expect(res.body).toContain(`(${BASE}/docs/guides/${name}.md)`);
  });
});

describe('the runner the docs name', () => {
  it('is the one this server serves, at its current version, everywhere it is written', () => {
    const files = [
      ...GUIDES.map((g) => path.join(GUIDES_DIR, `${g.name}.md`)),
      path.join(ROOT, 'api', 'discovery', 'skills', 'agent-arena', 'SKILL.md'),
      path.join(ROOT, 'README.md'),
    ];
    const named = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/arena-runner-([0-9][^\s/`"]*?)\.tgz/g)].map(
        (m) => `${path.relative(ROOT, file)}: ${m[1]}`,
      ),
    );
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((entry) => !entry.endsWith(`: ${RUNNER_VERSION}`))).toEqual([]);
    // And nowhere the bare `npx arena-runner`, which asks the registry for whoever owns that name.
    const bare = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /npx arena-runner (run |push |)--(base-url|port|agent)/.test(line))
        .map((line) => `${path.relative(ROOT, file)}: ${line.trim()}`),
    );
    expect(bare).toEqual([]);
  });
});

describe('content negotiation', () => {
  it.each([
    [undefined, false],
    ['text/markdown', true],
    ['text/markdown, text/html;q=0.9', true],
    ['text/html, text/markdown;q=0.5', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['*/*', false],
    ['text/*, text/markdown', true],
    ['text/markdown;q=0', false],
    ['application/json', false],
  ])('Accept: %s -> Markdown %s', (accept, markdown) => {
    expect(prefersMarkdown(accept)).toBe(markdown);
  });
});
