/**
 * Follows the quick-start guide literally against a listening app: its curl commands, replayed
 * as written; its TypeScript and Python agents, run as written, as real push agents (the
 * TypeScript one with the runner package installed from the arena as the guide says); and its
 * pull agent, run by the run_command the arena prints, from an empty folder with a HOME and an
 * npm cache of its own, as on a machine that never saw this project.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../infra/ports';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';
import { portIsOpen } from '../support/net';
import { startTestApp, type TestApp } from '../support/test-app';
import { codeBlocks, curlSources, exportedVariables, parseCurl, runCurl, shellBlocks } from './support/curl';
import { eventually } from '../support/wait';

const ROOT = path.join(__dirname, '..', '..');
const PLACEHOLDER_WEBHOOK = 'https://agent.example.com/arena';
const PUSH_AGENT = /-X POST \S+\/api\/agents \\[\s\S]*webhook_url/;
const RUNNER_VERSION = (
  JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'runner', 'package.json'), 'utf8')) as { version: string }
).version;

let t: TestApp;
let base: string;
let guide: string;
let workDir: string;
const agents: ChildProcess[] = [];
/** What the reader has exported so far, by the names the guide uses. */
const shell: Record<string, string> = {};

beforeAll(async () => {
  // The build packs the runner the app serves under /downloads/.
  await ensureBuilt();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startTestApp(
    { ARENA_PUBLIC_URL: base, ARENA_GYM_RETRY_SECONDS: '1' },
    { pingTimeoutMs: 2000, pastTheGym: false },
  );
  await t.app.listen({ port, host: '127.0.0.1' });
  await t.startWorker();
  const res = await fetch(`${base}/docs/guides/quick-start.md`);
  expect(res.status).toBe(200);
  guide = await res.text();
  workDir = mkdtempSync(path.join(tmpdir(), 'arena-quick-start-'));
}, BUILD_TIMEOUT_MS + 60_000);

afterAll(async () => {
  for (const agent of agents) killGroup(agent, 'SIGKILL');
  await t.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** The lines of the guide's shell blocks. */
function shellLines(markdown: string): string[] {
  return shellBlocks(markdown).flatMap((block) => block.split('\n').map((line) => line.trim()));
}

/** The environment of a machine that never saw this project: no npm settings inherited from the npm running jest. */
function strangerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))), ...extra };
}

/** Runs one line as a reader types it into a shell; rejects with its output when it fails. */
function runShell(line: string, cwd: string, env = strangerEnv()): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${line} exited ${code}:\n${output}`))));
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** The one curl command of the guide that matches, with the reader's variables filled in. */
function step(pattern: RegExp) {
  const matches = curlSources(guide).filter((s) => pattern.test(s));
  if (matches.length !== 1) throw new Error(`expected one command matching ${pattern}, found ${matches.length}`);
  return parseCurl(matches[0]!, shell);
}

/** Runs one of the guide's agents as written, with the secret and port its comment says to set. */
async function startGuideAgent(language: 'ts' | 'python', secret: string, port: number): Promise<void> {
  const [source] = codeBlocks(guide, language).filter((block) => /createServer|HTTPServer/.test(block));
  expect(source).toBeDefined();
  let command: string[];
  if (language === 'ts') {
    expect(source).toContain("from 'arena-runner/verify'");
    // The guide's install, as written: the runner package from the arena, beside the agent.
    const install = shellLines(guide).filter((line) => line.startsWith('npm install '));
    expect(install).toEqual([`npm install ${base}/downloads/arena-runner-${RUNNER_VERSION}.tgz`]);
    await runShell(install[0]!, workDir);
    const file = path.join(workDir, 'agent.ts');
    writeFileSync(file, source!);
    // tsx as a loader keeps it one process, so killing it stops the agent.
    command = [process.execPath, '--import', 'tsx', file];
  } else {
    const file = path.join(workDir, 'agent.py');
    writeFileSync(file, source!);
    command = ['python3', file];
  }
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, ARENA_WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  agents.push(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`the ${language} agent exited: ${stderr}`);
      return (await portIsOpen(port)) ? true : undefined;
    },
    `the ${language} agent to listen`,
    { timeoutMs: 30_000, everyMs: 250 },
  );
}

describe('the quick start, step by step', () => {
  let agentPort: number;

  it('tells the reader to export every variable its commands use', () => {
    const used = new Set(
      curlSources(guide).flatMap((s) => [...s.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!)),
    );
    const exported = exportedVariables(guide);
    for (const name of used) expect(exported).toContain(name);
    expect(exported).toEqual(expect.arrayContaining(['ARENA_API_KEY', 'AGENT_ID', 'ARENA_WEBHOOK_SECRET']));
  });

  it('1. registers', async () => {
    const res = await runCurl(step(/\/api\/register/));
    expect(res.status).toBe(201);
    const body = res.json();
    expect(body.api_key).toMatch(/^arena_/);
    shell.ARENA_API_KEY = body.api_key;
  });

  it('2. creates a push agent, whose first ping fails while the webhook is not running', async () => {
    // The reader's own URL in place of the guide's example one.
    agentPort = await freePort();
    const command = step(PUSH_AGENT);
    expect(command.body).toContain(PLACEHOLDER_WEBHOOK);
    const res = await runCurl({
      ...command,
      body: command.body!.replace(PLACEHOLDER_WEBHOOK, `http://127.0.0.1:${agentPort}/arena`),
    });
    expect(res.status).toBe(201);
    const agent = res.json();
    expect(agent).toMatchObject({
      mode: 'push',
      active: false,
      ping_error: expect.stringMatching(/connection refused/),
      profile_url: `/agents/${agent.id}`,
    });
    shell.AGENT_ID = String(agent.id);
    shell.ARENA_WEBHOOK_SECRET = agent.webhook_secret;
  });

  it('3. runs the TypeScript webhook, which refuses an unsigned request', async () => {
    await startGuideAgent('ts', shell.ARENA_WEBHOOK_SECRET!, agentPort);
    const unsigned = await fetch(`http://127.0.0.1:${agentPort}/arena`, {
      method: 'POST',
      body: '{"prompt_id": 1, "prompt": "x", "category": "x", "deadline_seconds": 5}',
    });
    expect(unsigned.status).toBe(401);
  }, 45_000);

  it('4. pings again and the agent is active', async () => {
    const res = await runCurl(step(/\/retest/));
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ id: Number(shell.AGENT_ID), active: true, ping_error: null });
  });

  it('5. watches the gym complete, every answer in the public feed', async () => {
    const detail = await eventually(
      async () => {
        const res = await runCurl(step(/\/api\/agents\/\$AGENT_ID \\/));
        expect(res.status).toBe(200);
        const body = res.json();
        return body.gym.gym_complete ? body : undefined;
      },
      'the gym to complete',
      { timeoutMs: 60_000, everyMs: 250 },
    );
    expect(detail.gym).toMatchObject({ total: 6, done: 6, errors: 0, gym_complete: true });
    const feed = await runCurl(step(/\/activity\?limit=10/));
    expect(feed.status).toBe(200);
    const gym = feed.json().sessions.filter((s: { kind: string }) => s.kind === 'gym');
    expect(gym).toHaveLength(6);
    for (const s of gym) {
      expect(s).toMatchObject({ status: 'answered', error: null });
      expect(s.response).toBe(`You asked (${s.category}): ${s.prompt}`);
    }
  }, 90_000);

  it('6. sends itself a sandbox prompt and sees the answer', async () => {
    const res = await runCurl(step(/\/sandbox \\/));
    expect(res.status).toBe(202);
    const pending = res.json();
    expect(pending).toMatchObject({ kind: 'sandbox', status: 'pending', prompt: 'Say hello in French.' });
    const answered = await eventually(
      async () => {
        const feed = (await runCurl(step(/\/activity\?limit=10/))).json();
        const session = feed.sessions.find((s: { id: string }) => s.id === pending.id);
        return session?.status === 'pending' ? undefined : session;
      },
      'the sandbox answer',
      { timeoutMs: 60_000, everyMs: 250 },
    );
    expect(answered).toMatchObject({ status: 'answered', response: 'You asked (sandbox): Say hello in French.' });
  }, 90_000);
});

describe('the quick start without a public URL', () => {
  it('runs the printed run_command from an empty folder, which answers the gym and leaves the folder empty', async () => {
    const created = await runCurl(step(/"mode": "pull"/));
    expect(created.status).toBe(201);
    const agent = created.json();
    expect(agent.run_command).toBe(
      `npx --yes --package ${base}/downloads/arena-runner-${RUNNER_VERSION}.tgz arena-runner run --base-url ${base} --agent ${agent.id} --secret <AGENT_SECRET> -- <your-agent-command>`,
    );
    // The guide's command, as the reader types it, is the printed one with the placeholders filled in.
    const typed = shellLines(guide).filter((line) => line.startsWith('npx '));
    expect(typed).toHaveLength(1);
    const [sample] = typed;
    expect(sample!.replace(/--agent \d+/, `--agent ${agent.id}`)).toBe(
      agent.run_command.replace('<AGENT_SECRET>', 'agsec_...').replace('<your-agent-command>', 'python3 agent.py'),
    );

    const [program] = codeBlocks(guide, 'python').filter((block) => block.includes('json.load(sys.stdin)'));
    expect(program).toBeDefined();
    const agentFile = path.join(workDir, 'pull-agent.py');
    writeFileSync(agentFile, program!);
    const machine = mkdtempSync(path.join(tmpdir(), 'arena-stranger-'));
    const home = path.join(machine, 'home');
    const folder = path.join(machine, 'empty');
    mkdirSync(home);
    mkdirSync(folder);
    const command = agent.run_command
      .replace('<AGENT_SECRET>', agent.webhook_secret)
      .replace('<your-agent-command>', `python3 ${agentFile}`);
    const runner = spawn('sh', ['-c', command], {
      cwd: folder,
      env: strangerEnv({ HOME: home, npm_config_cache: path.join(home, '.npm') }),
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    agents.push(runner);
    let stderr = '';
    runner.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      const detail = await eventually(
        async () => {
          if (runner.exitCode !== null) throw new Error(`the runner exited ${runner.exitCode}:\n${stderr}`);
          const body = (
            await runCurl(
              parseCurl(`curl -s ${base}/api/agents/${agent.id} -H "Authorization: Bearer $ARENA_API_KEY"`, shell),
            )
          ).json();
          return body.gym.gym_complete ? body : undefined;
        },
        'the runner to answer the gym',
        { timeoutMs: 120_000, everyMs: 250 },
      );
      expect(detail.gym).toMatchObject({ total: 6, done: 6, errors: 0 });
      const feed = (await (await fetch(`${base}/api/agents/${agent.id}/activity?limit=10`)).json()) as {
        sessions: Array<{ kind: string; status: string; category: string; prompt: string; response: string }>;
      };
      for (const s of feed.sessions.filter((entry) => entry.kind === 'gym'))
        expect(s).toMatchObject({ status: 'answered', response: `You asked (${s.category}): ${s.prompt}` });
      killGroup(runner, 'SIGINT');
      await new Promise((resolve) => (runner.exitCode !== null ? resolve(null) : runner.once('exit', resolve)));
      expect(stderr).not.toContain(agent.webhook_secret);
      expect(readdirSync(folder)).toEqual([]);
    } finally {
      killGroup(runner, 'SIGKILL');
      rmSync(machine, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("the quick start's Python agent", () => {
  it('passes the ping, answers a signed prompt and refuses an unsigned one', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/arena`;
    const command = step(PUSH_AGENT);
    const created = await runCurl({ ...command, body: command.body!.replace(PLACEHOLDER_WEBHOOK, url) });
    expect(created.status).toBe(201);
    const agent = created.json();
    await startGuideAgent('python', agent.webhook_secret, port);
    const auth = { authorization: `Bearer ${shell.ARENA_API_KEY}` };
    const retest = await fetch(`${base}/api/agents/${agent.id}/retest`, { method: 'POST', headers: auth });
    expect(await retest.json()).toEqual({ id: agent.id, active: true, ping_error: null });

    const unsigned = await fetch(url, {
      method: 'POST',
      body: '{"prompt_id": 1, "prompt": "x", "category": "x", "deadline_seconds": 5}',
    });
    expect(unsigned.status).toBe(401);

    const task = await fetch(`${base}/api/agents/${agent.id}/sandbox`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Bonjour?', deadline_seconds: 30 }),
    });
    expect(task.status).toBe(202);
    const { id } = (await task.json()) as { id: string };
    const answered = await eventually(
      async () => {
        const feed = (await (await fetch(`${base}/api/agents/${agent.id}/activity`)).json()) as {
          sessions: Array<{ id: string; status: string }>;
        };
        const session = feed.sessions.find((s) => s.id === id);
        return session?.status === 'pending' ? undefined : session;
      },
      'the Python agent to answer',
      { timeoutMs: 60_000, everyMs: 250 },
    );
    expect(answered).toMatchObject({ status: 'answered', response: 'You asked (sandbox): Bonjour?' });
  }, 90_000);
});
