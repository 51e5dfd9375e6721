/**
 * The runner as an owner gets it: the tarball the arena serves under /downloads/ (packed by
 * `npm run build`), checked against its SHA-256, installed from its address into an empty folder,
 * its installed bin run in pull and in push mode against the real app.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import { freePort } from '../../infra/ports';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { killRunners, startRunner } from './support/cli';
import { until } from '../support/wait';

const execFileAsync = promisify(execFile);
const RUNNER_VERSION = (
  JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'runner', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
const AGENT = [
  process.execPath,
  '-e',
  `let s = ''; process.stdin.on('data', (c) => (s += c)).on('end', () => console.log('installed: ' + JSON.parse(s).category + ' (' + process.env.ARENA_KIND + ')'));`,
];

let ownerMachine: string;
let installedBin: string;
let t: TestApp;
let client: Client;
let owner: Registered;
let baseUrl: string;
let listing: {
  runner: { version: string; url: string; sha256: string | null; run_command: string };
  files: Array<{ name: string; url: string; size_bytes: number; sha256: string }>;
};
let tarball: Buffer;

// npm, when it runs jest, exports npm_* settings (this project's prefix among them) that must not
// steer an install meant for another folder.
function npm(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return execFileAsync('npm', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
}

beforeAll(async () => {
  // The build packs the runner into downloads/, which the app serves.
  await ensureBuilt();
  ownerMachine = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-runner-install-'));
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1' }, { pingTimeoutMs: 5000, pastTheGym: false });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  owner = await register(t.app);
  await t.startWorker();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });

  listing = (await (await fetch(`${baseUrl}/downloads/`)).json()) as typeof listing;
  const download = await fetch(`${baseUrl}/downloads/arena-runner-${RUNNER_VERSION}.tgz`);
  expect(download.status).toBe(200);
  tarball = Buffer.from(await download.arrayBuffer());

  const project = path.join(ownerMachine, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), '{"name": "owner-machine", "private": true}\n');
  // The dependencies come from the npm cache when it has them, which a machine that ran `npm ci` does.
  await npm(
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      `${baseUrl}/downloads/arena-runner-${RUNNER_VERSION}.tgz`,
    ],
    project,
  );
  installedBin = path.join(project, 'node_modules', '.bin', 'arena-runner');
}, BUILD_TIMEOUT_MS + 120_000);

afterAll(async () => {
  killRunners();
  await t?.close();
  if (ownerMachine) fs.rmSync(ownerMachine, { recursive: true, force: true });
});

it('is listed with the SHA-256 of the bytes served, which its .sha256 file repeats', async () => {
  const sha256 = createHash('sha256').update(tarball).digest('hex');
  const name = `arena-runner-${RUNNER_VERSION}.tgz`;
  expect(listing.runner).toEqual({
    version: RUNNER_VERSION,
    url: `${t.config.publicUrl}/downloads/${name}`,
    sha256,
    run_command: `npx --yes --package ${t.config.publicUrl}/downloads/${name} arena-runner run --base-url ${t.config.publicUrl} --agent <id> --secret <AGENT_SECRET> -- <your-agent-command>`,
  });
  expect(listing.files).toContainEqual({
    name,
    url: `${t.config.publicUrl}/downloads/${name}`,
    size_bytes: tarball.length,
    sha256,
  });
  const checksum = await fetch(`${baseUrl}/downloads/${name}.sha256`);
  expect(await checksum.text()).toBe(`${sha256}  ${name}\n`);
  const again = await fetch(`${baseUrl}/downloads/${name}`, { method: 'HEAD' });
  expect(again.headers.get('repr-digest')).toBe(`sha-256=:${Buffer.from(sha256, 'hex').toString('base64')}:`);
  expect(again.headers.get('content-type')).toBe('application/gzip');
  // The version names it and the protocol summary points at it.
  const version = (await (await fetch(`${baseUrl}/api/version`)).json()) as { runner: unknown };
  expect(version.runner).toEqual(listing.runner);
});

const createAgent = async (payload: object) =>
  (await t.app.inject({ method: 'POST', url: '/api/agents', headers: owner.auth, payload })).json();

async function answeredSandbox(agentId: number): Promise<unknown> {
  const task = (
    await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agentId}/sandbox`,
      headers: owner.auth,
      payload: { prompt: 'hello', category: 'greeting' },
    })
  ).json();
  expect(await client.workflow.getHandle(deliveryWorkflowId(Number(task.id.split('-')[1]))).result()).toEqual({
    status: 'answered',
  });
  const feed = (await t.app.inject({ method: 'GET', url: `/api/agents/${agentId}/activity?limit=10` })).json();
  return feed.sessions.find((s: { id: string }) => s.id === task.id);
}

it('installs with its own dependencies only, and no sources', () => {
  const modules = path.join(ownerMachine, 'project', 'node_modules');
  const installed = fs.readdirSync(modules).filter((name) => !name.startsWith('.'));
  const manifest = JSON.parse(fs.readFileSync(path.join(modules, 'arena-runner', 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  expect(Object.keys(manifest.dependencies).sort()).toEqual(['@modelcontextprotocol/sdk', 'commander', 'undici']);
  // Those and what they need (the MCP SDK brings its own), nothing of the server's or of the build's.
  expect(installed).toEqual(expect.arrayContaining(['@modelcontextprotocol', 'arena-runner', 'commander', 'undici']));
  const buildOnly = ['typescript', '@typescript', '@types', 'jest', 'esbuild'];
  for (const name of [...buildOnly, 'fastify', '@temporalio', '@mikro-orm', 'pg'])
    expect(installed).not.toContain(name);
  expect(fs.existsSync(path.join(modules, 'arena-runner', 'dist', 'arena-runner.js'))).toBe(true);
  expect(fs.existsSync(path.join(modules, 'arena-runner', 'src'))).toBe(false);
});

it('pull: the installed bin answers the gym and a sandbox prompt from the app', async () => {
  const agent = await createAgent({ name: 'installed-puller', mode: 'pull' });
  const runner = startRunner(
    ['run', '--base-url', baseUrl, '--agent', String(agent.id), '--wait', '1', '--', ...AGENT],
    { ARENA_AGENT_SECRET: agent.webhook_secret },
    [installedBin],
  );

  await client.workflow.getHandle(`gym-${agent.id}-1`).result();
  expect(await answeredSandbox(agent.id)).toMatchObject({
    status: 'answered',
    response: 'installed: greeting (sandbox)',
  });

  runner.child.kill('SIGINT');
  expect(await runner.exited).toEqual({ code: 0, signal: null });
  expect(runner.stderr()).toMatch(/^\[arena-runner\] sandbox-\d+: answered in \d+ ms$/m);
  expect(runner.stderr()).not.toContain(agent.webhook_secret);
}, 60_000);

it("push: the app pings and delivers to the installed bin's webhook, which checks the signatures", async () => {
  const port = await freePort();
  const agent = await createAgent({ name: 'installed-pusher', webhook_url: `http://127.0.0.1:${port}/` });
  expect(agent).toMatchObject({ active: false, ping_error: expect.stringMatching(/refused/) });

  const runner = startRunner(
    ['push', '--port', String(port), '--', ...AGENT],
    { ARENA_AGENT_SECRET: agent.webhook_secret },
    [installedBin],
  );
  await until(
    () => runner.stderr().includes(`listening on http://127.0.0.1:${port}/`),
    'the webhook to listen',
    20_000,
  );
  const retest = await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/retest`, headers: owner.auth });
  expect(retest.json()).toEqual({ id: agent.id, active: true, ping_error: null });

  await client.workflow.getHandle(`gym-${agent.id}-1`).result();
  expect(await answeredSandbox(agent.id)).toMatchObject({
    status: 'answered',
    response: 'installed: greeting (sandbox)',
  });

  runner.child.kill('SIGTERM');
  expect(await runner.exited).toEqual({ code: 0, signal: null });
  expect(runner.stderr()).not.toContain(agent.webhook_secret);
}, 60_000);
