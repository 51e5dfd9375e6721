/**
 * Every link the documents give to this service answers 200: the pages behind them read the
 * database, so this runs on the whole app (the documents themselves are tested in docs.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GUIDES } from '../../api/discovery/guides';
import { runnerTarball } from '../../domain/runner-download';
import { RUNNER_VERSION } from '../../infra/runner-package';
import { startTestApp, type TestApp } from '../support/test-app';
import { htmlLinks, markdownLinks, pathsOnService } from './support/links';

const BASE = 'http://arena.test';

let t: TestApp;
let downloads: string;
beforeAll(async () => {
  // The runner the docs link, as the build would pack it; the bytes are another test's concern.
  downloads = mkdtempSync(path.join(tmpdir(), 'arena-doc-links-downloads-'));
  writeFileSync(path.join(downloads, runnerTarball(RUNNER_VERSION)), 'runner');
  t = await startTestApp({}, { downloadsDir: downloads });
});
afterAll(async () => {
  await t.close();
  rmSync(downloads, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

/** Requests each path; returns those that do not answer 200. */
async function broken(paths: string[]): Promise<string[]> {
  const failures: string[] = [];
  for (const path of paths) {
    const res = await get(path);
    if (res.statusCode !== 200) failures.push(`${path} -> ${res.statusCode}`);
  }
  return failures;
}

describe('every link to this service answers 200', () => {
  it('in llms.txt', async () => {
    const body = (await get('/llms.txt')).body;
    const paths = pathsOnService(markdownLinks(body), `${BASE}/llms.txt`, BASE);
    expect(paths.length).toBeGreaterThan(15);
    expect(await broken(paths)).toEqual([]);
  });

  it('in the guides, as Markdown and as HTML, and on the docs root', async () => {
    const paths = new Set<string>();
    for (const { name } of GUIDES) {
      const mdUrl = `${BASE}/docs/guides/${name}.md`;
      const htmlUrl = `${BASE}/docs/guides/${name}`;
      for (const p of pathsOnService(markdownLinks((await get(`/docs/guides/${name}.md`)).body), mdUrl, BASE))
        paths.add(p);
      for (const p of pathsOnService(htmlLinks((await get(`/docs/guides/${name}`)).body), htmlUrl, BASE)) paths.add(p);
    }
    for (const p of pathsOnService(htmlLinks((await get('/docs/')).body), `${BASE}/docs/`, BASE)) paths.add(p);
    expect(paths.size).toBeGreaterThan(15);
    expect(await broken([...paths])).toEqual([]);
  });

  it('in the SKILL.md', async () => {
    const body = (await get('/.well-known/agent-skills/agent-arena/SKILL.md')).body;
    const links = [...body.matchAll(/`(http:\/\/arena\.test\/[^`\s]*)`/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    expect(await broken(pathsOnService(links, BASE, BASE))).toEqual([]);
  });
});
