/**
 * The compiled server (`npm run build` into dist/): the `arena` bin, migrations, and the API and
 * worker processes of `npm run api|worker|migrate` run from it, with the files they read at run time.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../infra/ports';
import { loadTaskCatalogue } from '../infra/sandbox/task-catalogue';
import { apiNodeArgs } from '../bench/stack/api-command';
import { ApiProcess, apiEnv } from './support/api-process';
import { BUILD_TIMEOUT_MS, ensureBuilt, REPO } from './support/build';
import { register, startTestApp, type TestApp } from './support/test-app';
import { WorkerProcess, workerEnv } from './support/worker-process';

const run = promisify(execFile);
let t: TestApp;

beforeAll(async () => {
  [t] = await Promise.all([startTestApp(), ensureBuilt()]);
}, BUILD_TIMEOUT_MS + 60_000);
afterAll(() => t?.close());

it('runs the arena bin and the migrations from dist/, and has the workflows bundled', async () => {
  expect(fs.statSync(path.join(REPO, 'dist', 'workflow-bundle.js')).size).toBeGreaterThan(100_000);
  const help = await run(process.execPath, [path.join(REPO, 'cli', 'bin', 'arena.js'), '--help'], { cwd: REPO });
  expect(help.stdout).toContain('Usage: arena');
  // The test database is migrated already: the compiled migrator finds every migration applied.
  const migrate = await run(process.execPath, ['dist/infra/db/migrate.js'], { cwd: REPO, env: apiEnv(t, 0) });
  expect(migrate.stderr).toBe('');
}, 120_000);

it('serves the API, the website and the guides, and runs the worker, from dist/', async () => {
  // Node's arguments exactly as `npm run api` gives them (its V8 flags included).
  const api = new ApiProcess(apiEnv(t, await freePort()), apiNodeArgs());
  // The worker loads the workflow bundle the build wrote (dist/workflow-bundle.js), not the run's.
  const { ARENA_WORKFLOW_BUNDLE: _runs, ...env } = workerEnv(t);
  const worker = new WorkerProcess(env, ['dist/worker/main.js']);
  try {
    const [base] = await Promise.all([api.ready, worker.ready]);
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ok', database: 'ok', temporal: 'ok' });
    const page = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
    expect({ status: page.status, html: (await page.text()).includes('</html>') }).toEqual({ status: 200, html: true });
    expect((await fetch(`${base}/docs/guides/quick-start`, { headers: { accept: 'text/markdown' } })).status).toBe(200);
    expect((await fetch(`${base}/favicon.ico`)).status).toBe(200);
    // The runner the build packed, from the copy beside the compiled server, with the digest it is listed with.
    const { runner } = (await (await fetch(`${base}/downloads/`)).json()) as {
      runner: { url: string; sha256: string };
    };
    const tarball = Buffer.from(await (await fetch(`${base}${new URL(runner.url).pathname}`)).arrayBuffer());
    expect(createHash('sha256').update(tarball).digest('hex')).toBe(runner.sha256);
    // A pull agent's first work (the gym's) is queued by the compiled worker's workflow and activities.
    const owner = await register(t.app);
    const created = await fetch(`${base}/api/agents`, {
      method: 'POST',
      headers: { ...owner.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'compiled', mode: 'pull' }),
    });
    expect(created.status).toBe(201);
    const agent = (await created.json()) as { id: number; webhook_secret: string };
    const work = await fetch(`${base}/api/agents/${agent.id}/work/next?wait=30`, {
      headers: { 'x-arena-secret': agent.webhook_secret },
    });
    expect(work.status).toBe(200);
  } finally {
    await Promise.allSettled([api.stop(), worker.kill()]);
  }
}, 240_000);

it('loads the coding-task catalogue from the copy the build puts beside the compiled code', async () => {
  const script = `const c = require('./dist/infra/sandbox/task-catalogue.js');
    console.log(JSON.stringify({ dir: c.DEFAULT_SANDBOX_TASKS_DIR, ids: c.loadTaskCatalogue().map((t) => t.id) }));`;
  const { stdout } = await run(process.execPath, ['-e', script], { cwd: REPO });
  const compiled = JSON.parse(stdout) as { dir: string; ids: string[] };
  expect(compiled.dir).toBe(path.join(REPO, 'dist', 'sandbox-tasks'));
  expect(compiled.ids).toEqual(loadTaskCatalogue().map((task) => task.id));
});
