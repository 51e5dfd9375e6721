/** End to end: `npm start` brings up the embedded stack, stops cleanly on SIGTERM, and keeps its data across a restart. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../infra/ports';
import { BUILD_TIMEOUT_MS, ensureBuilt } from './support/build';
import { portIsOpen } from './support/net';

const REPO = path.resolve(__dirname, '..');
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;

interface RunningStack {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

let dataDir: string;
let ports: { api: number; pg: number; temporal: number; ui: number };
let running: RunningStack | undefined;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-stack-'));
  ports = { api: await freePort(), pg: await freePort(), temporal: await freePort(), ui: await freePort() };
  // `npm start` builds first, and the `arena` bin runs the build.
  await ensureBuilt();
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  // Only after a failure is something still running; the servers follow it through their death signal.
  if (running?.child.pid) killGroup(running.child.pid, 'SIGKILL');
  await running?.exited;
  await fs.rm(dataDir, { recursive: true, force: true });
});

function stackEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // Empty counts as unset: the embedded stack, whatever the environment running the tests has.
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    ARENA_ENCRYPTION_KEY: '',
    TEMPORAL_NAMESPACE: '',
    TEMPORAL_UI_URL: '',
    ARENA_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(ports.api),
    ARENA_PG_PORT: String(ports.pg),
    ARENA_TEMPORAL_PORT: String(ports.temporal),
    ARENA_TEMPORAL_UI_PORT: String(ports.ui),
  };
}

/** `npm start` (after its build: node dist/cli/start.js), or the same through the operator CLI (`arena start`). */
function startStack(how: 'npm start' | 'arena start' = 'npm start'): RunningStack {
  const cliPath = process.env.TEST_TEMPORAL_CLI_PATH;
  if (!cliPath) throw new Error('TEST_TEMPORAL_CLI_PATH is unset: is test/support/global-setup.ts configured?');
  const [command, args] =
    how === 'npm start'
      ? [process.execPath, ['dist/cli/start.js']]
      : [process.execPath, [path.join(REPO, 'cli', 'bin', 'arena.js'), 'start']];
  const child = spawn(command, args, {
    cwd: REPO,
    detached: true, // a process group of its own, which the test signals like a terminal would
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...stackEnv(), TEMPORAL_CLI_PATH: cliPath, LOG_LEVEL: 'warn' },
  });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  running = { child, output, exited };
  return running;
}

async function waitForHealth(stack: RunningStack): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exitCode: number | null | undefined;
  void stack.exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`npm start exited with ${exitCode}:\n${stack.output.join('')}`);
    const status = await fetch(`http://127.0.0.1:${ports.api}/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`GET /health did not answer 200 within ${START_TIMEOUT_MS / 1000} s:\n${stack.output.join('')}`);
}

async function stopStack(stack: RunningStack): Promise<void> {
  killGroup(stack.child.pid!, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS)));
  const code = await Promise.race([stack.exited, timeout]).finally(() => clearTimeout(timer));
  expect({ code, output: code === 0 ? '' : stack.output.join('') }).toEqual({ code: 0, output: '' });
  running = undefined;
  // Stopped in order: nothing new comes in, then the worker drains, then what they both used.
  const stopped = stack.output
    .join('')
    .split('\n')
    .filter((line) => / stopped$/.test(line));
  expect(stopped).toEqual([
    '[arena] API stopped',
    '[arena] worker stopped',
    '[arena] Temporal dev server stopped',
    '[arena] PostgreSQL stopped',
  ]);
  expect(groupIsGone(stack.child.pid!)).toBe(true);
  const open = await Promise.all(Object.entries(ports).map(async ([name, port]) => [name, await portIsOpen(port)]));
  expect(Object.fromEntries(open)).toEqual({ api: false, pg: false, temporal: false, ui: false });
  // PostgreSQL and Temporal run in process groups of their own; none may remain.
  expect(await processesMentioning(dataDir)).toEqual([]);
}

/** The `arena` bin with the stack's environment (no DATABASE_URL or TEMPORAL_ADDRESS: the embedded ones). */
function runArena(argv: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [path.join(REPO, 'cli', 'bin', 'arena.js'), ...argv], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...stackEnv(), LOG_LEVEL: 'warn' },
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout })));
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function groupIsGone(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function processesMentioning(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(text)) found.push(`${pid}: ${cmdline.replace(/\0/g, ' ')}`);
  }
  return found;
}

test(
  'npm start (and arena start) runs the embedded stack, stops cleanly, and keeps accounts across a restart',
  async () => {
    const first = startStack();
    await waitForHealth(first);
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBeLessThan(500);

    const registered = await fetch(`http://127.0.0.1:${ports.api}/api/register`, { method: 'POST' });
    expect(registered.status).toBe(201);
    const { api_key: apiKey } = (await registered.json()) as { api_key: string };
    expect(typeof apiKey).toBe('string');
    const account = () =>
      fetch(`http://127.0.0.1:${ports.api}/api/account`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect((await account()).status).toBe(200);
    // One /metrics for the whole process: the API's, the worker's and the Temporal SDK's.
    const metrics = await (await fetch(`http://127.0.0.1:${ports.api}/metrics`)).text();
    expect(metrics).toMatch(
      /^arena_http_request_duration_seconds_count\{method="POST",route="\/api\/register",status_code="201"\} 1$/m,
    );
    expect(metrics).toMatch(/^temporal_\w+/m);
    // The operator CLI finds the embedded stack on its own, from the same environment.
    const deliveries = await runArena(['deliveries', '--json']);
    expect(deliveries).toEqual({ code: 0, stdout: '' });
    // Workflows run: a pull agent's gym starts (eagerly, on the worker's connection) and queues its first prompt.
    const created = await fetch(`http://127.0.0.1:${ports.api}/api/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'embedded', mode: 'pull' }),
    });
    expect(created.status).toBe(201);
    const agent = (await created.json()) as { id: number; webhook_secret: string };
    const work = await fetch(`http://127.0.0.1:${ports.api}/api/agents/${agent.id}/work/next?wait=30`, {
      headers: { 'x-arena-secret': agent.webhook_secret },
    });
    expect(work.status).toBe(200);
    await stopStack(first);

    const second = startStack('arena start');
    await waitForHealth(second);
    expect((await account()).status).toBe(200);
    await stopStack(second);
  },
  2 * START_TIMEOUT_MS + 2 * STOP_TIMEOUT_MS,
);

/** `npm start` (after its build) in a pseudo-terminal, as a person runs it; Ctrl-C is typed into the terminal. */
function startOnTerminal(): RunningStack & { type(text: string): void } {
  const cliPath = process.env.TEST_TEMPORAL_CLI_PATH!;
  // util-linux script(1) gives the command a terminal of its own and copies what it prints. It runs
  // the command with $SHELL -c; `exec` leaves node alone in the terminal's foreground group, so the
  // Ctrl-C reaches node and not a shell that would die of it (dash, /bin/sh here, does not exec by itself).
  const child = spawn('script', ['-qfec', `exec ${process.execPath} dist/cli/start.js`, '/dev/null'], {
    cwd: REPO,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...stackEnv(), SHELL: '/bin/sh', TEMPORAL_CLI_PATH: cliPath, LOG_LEVEL: 'info', LOG_FORMAT: '' },
  });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  running = { child, output, exited };
  return { ...running, type: (text) => child.stdin!.write(text) };
}

test(
  'on a terminal, npm start prints short human lines and no JSON, with its banner once the servers are up',
  async () => {
    const stack = startOnTerminal();
    await waitForHealth(stack);
    // A delivery, so the worker has one to report: a pull agent's first gym prompt, answered.
    const base = `http://127.0.0.1:${ports.api}`;
    const { api_key: apiKey } = (await (await fetch(`${base}/api/register`, { method: 'POST' })).json()) as {
      api_key: string;
    };
    const agent = (await (
      await fetch(`${base}/api/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'on-a-terminal', mode: 'pull' }),
      })
    ).json()) as { id: number; webhook_secret: string };
    const secret = { 'x-arena-secret': agent.webhook_secret };
    const work = (await (
      await fetch(`${base}/api/agents/${agent.id}/work/next?wait=30`, { headers: secret })
    ).json()) as { work_id: string };
    const posted = await fetch(`${base}/api/agents/${agent.id}/work/${work.work_id}/result`, {
      method: 'POST',
      headers: { ...secret, 'content-type': 'application/json' },
      body: JSON.stringify({ response: 'ready' }),
    });
    expect(posted.status).toBe(200);
    const text = () =>
      stack.output
        .join('')
        .replace(/\x1b\[[0-9;]*m/g, '')
        .replace(/\r/g, '');
    const recorded = `(worker): delivery recorded: ${work.work_id} answered in `;
    const deadline = Date.now() + 30_000;
    while (!text().includes(recorded) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));

    stack.type('\x03');
    expect(await stack.exited).toBe(0);
    running = undefined;
    const lines = text()
      .split('\n')
      // The terminal echoes the typed Ctrl-C as ^C in front of the next line.
      .map((line) => line.replace(/^\^C/, ''))
      .filter((line) => line.trim() !== '');
    expect(lines.filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
    const banner = lines.indexOf('Agent Arena is running.');
    const listening = lines.findIndex((line) => /\(api\): Server listening at /.test(line));
    expect(listening).toBeGreaterThan(-1);
    expect(banner).toBeGreaterThan(listening);
    // Before the banner, and after its last line, every line is time, level, process and message.
    const pretty = /^\[\d\d:\d\d:\d\d\] (DEBUG|INFO|WARN|ERROR) \((arena|api|worker)\): \S/;
    const end = lines.indexOf('Press Ctrl-C to stop.');
    expect([...lines.slice(0, banner), ...lines.slice(end + 1)].filter((line) => !pretty.test(line))).toEqual([]);
    // A new arena has no trusted judge: the banner says no vote counts, and names the command; this
    // machine isolates coding sessions, and the banner says so.
    expect(lines.slice(banner, end)).toEqual(
      expect.arrayContaining([
        '  Coding:       on, every command of a session under bubblewrap',
        '  Votes:        none counts yet: no judge is trusted. Vouch for judges with',
        '                npm run arena -- judges trust <username>',
      ]),
    );
    expect(lines).toContainEqual(expect.stringContaining(recorded));
    expect(lines).toContainEqual(expect.stringMatching(/ \(api\): \[[0-9a-f]{8}\] POST \/api\/register$/));
    expect(lines).toContainEqual(expect.stringMatching(/ \(arena\): PostgreSQL stopped$/));
    expect(text()).not.toContain(agent.webhook_secret);
  },
  START_TIMEOUT_MS + STOP_TIMEOUT_MS,
);
