import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import type { AgentCommand } from '../../../runner/src/adapter';
import { runPullLoop } from '../../../runner/src/pull';
import { startPushServer, type PushServer } from '../../../runner/src/push';
import type { SandboxSession } from '../../../runner/src/sandbox-session';
import { signatureHeaders } from '../../../runner/src/signing';
import { killRunners, runToEnd, startRunner, type Finished } from '../../runner/support/cli';
import { startFakeArena, type FakeArena } from '../../runner/support/fake-arena';
import {
  startFakeSandbox,
  type FakeSandbox,
  type FakeSandboxOptions,
  type SubmitAnswer,
} from '../../runner/support/fake-sandbox';
import { nodeScript } from '../../runner/support/wait';
import { until } from '../../support/wait';

const EXAMPLE_AGENT = path.resolve(__dirname, '..', '..', '..', 'examples', 'sandbox-agent', 'agent.mjs');
const BUGGY_CALENDAR = [
  '"""Calendar helpers."""',
  '',
  '',
  'def is_leap(year: int) -> bool:',
  '    """True when `year` is a leap year."""',
  '    return year % 4 == 0',
  '',
].join('\n');
const FIXED_LINE = '    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)';
const LEAP_STATEMENT = 'is_leap(1900) answers True, but 1900 was not a leap year. Fix calendar_utils.py.';

// Prints what it can see of its own process: the environment and the payload it read.
const NOSY_AGENT = [
  process.execPath,
  '-e',
  `let s = ''; process.stdin.on('data', (c) => (s += c)).on('end', () => process.stdout.write(JSON.stringify({ env: process.env, payload: JSON.parse(s) })))`,
];

let sandboxes: FakeSandbox[] = [];
let arenas: FakeArena[] = [];
let servers: PushServer[] = [];
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runner-sandbox-'));
});

afterEach(async () => {
  killRunners();
  await Promise.all([...sandboxes, ...arenas, ...servers].map((s) => s.close()));
  sandboxes = [];
  arenas = [];
  servers = [];
  fs.rmSync(dir, { recursive: true, force: true });
});

async function fakeSandbox(opts?: FakeSandboxOptions): Promise<FakeSandbox> {
  const sandbox = await startFakeSandbox(opts);
  sandboxes.push(sandbox);
  return sandbox;
}

async function fakeArena(): Promise<FakeArena> {
  const arena = await startFakeArena();
  arenas.push(arena);
  return arena;
}

/** `arena-runner sandbox <args>` with the session's address and token in its environment. */
function helper(sandbox: FakeSandbox, args: string[], stdin = '', env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return runToEnd(
    ['sandbox', ...args],
    { ARENA_SANDBOX_API: sandbox.api, ARENA_SANDBOX_TOKEN: sandbox.token, ...env },
    stdin,
  );
}

function sessionFields(sandbox: FakeSandbox, expiresInMs = 60_000): { sandbox: SandboxSession } {
  return {
    sandbox: {
      session_id: sandbox.sessionId,
      api: sandbox.api,
      token: sandbox.token,
      expires_at: new Date(Date.now() + expiresInMs).toISOString(),
      max_steps: 200,
    },
  };
}

function sessionPayload(
  sandbox: FakeSandbox,
  prompt = LEAP_STATEMENT,
): Record<string, unknown> & { sandbox: SandboxSession } {
  return { prompt_id: 'task-9', prompt, category: 'swe', deadline_seconds: 60, ...sessionFields(sandbox) };
}

/** The hidden tests of the leap-year task, run with the Python on this machine. */
function gradeLeapYear(workspace: string): SubmitAnswer {
  const years = [1900, 2000, 2023, 2024];
  const run = spawnSync(
    'python3',
    ['-c', `from calendar_utils import is_leap; print(" ".join(str(is_leap(y)) for y in [${years.join(', ')}]))`],
    { cwd: workspace, encoding: 'utf8' },
  );
  const answers = run.stdout.trim().split(' ');
  const passed = years.filter(
    (y, i) => answers[i] === String(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 'True' : 'False'),
  ).length;
  return { status: passed === years.length ? 'passed' : 'failed', tests_passed: passed, tests_total: years.length };
}

const steps = (sandbox: FakeSandbox) =>
  sandbox.requests.map((r) => `${r.method} ${r.step}${r.path === null ? '' : ` ${r.path}`}`);

describe('arena-runner sandbox', () => {
  it('exec -- <argv>: sends the argv with the session token, prints both streams, exits with the code', async () => {
    const sandbox = await fakeSandbox();
    const run = await helper(sandbox, ['exec', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);

    expect(run).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\n' });
    expect(sandbox.requests).toHaveLength(1);
    const [step] = sandbox.requests;
    expect(step).toMatchObject({
      method: 'POST',
      url: '/api/agents/7/sandbox/sandbox-41/exec',
      authorization: `Bearer ${sandbox.token}`,
      contentType: 'application/json',
    });
    expect(JSON.parse(step!.body)).toEqual({ command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] });
  }, 30_000);

  it('exec --shell: sends one string, with --timeout and the text of --stdin-from', async () => {
    const sandbox = await fakeSandbox();
    const input = path.join(dir, 'input.txt');
    fs.writeFileSync(input, 'line one\nline two\n');

    const fromFile = await helper(sandbox, ['exec', '--shell', 'wc -l', '--timeout', '5', '--stdin-from', input]);
    expect(fromFile).toEqual({ code: 0, stdout: '2\n', stderr: '' });
    expect(JSON.parse(sandbox.requests[0]!.body)).toEqual({
      command: 'wc -l',
      timeout_seconds: 5,
      stdin: 'line one\nline two\n',
    });

    const fromStdin = await helper(sandbox, ['exec', '--stdin-from', '-', '--', 'cat'], 'piped in');
    expect(fromStdin).toEqual({ code: 0, stdout: 'piped in', stderr: '' });
  }, 30_000);

  it('exec --json: prints the whole result and exits 0 whatever the command exited with', async () => {
    const sandbox = await fakeSandbox();
    const run = await helper(sandbox, ['exec', '--json', '--shell', 'echo nope; exit 4']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      exit_code: 4,
      stdout: 'nope\n',
      stderr: '',
      truncated: false,
      duration_ms: expect.any(Number),
    });
  }, 30_000);

  it('exec: refuses both or neither of --shell and an argv with 64, before any step', async () => {
    const sandbox = await fakeSandbox();
    const both = await helper(sandbox, ['exec', '--shell', 'ls', '--', 'ls']);
    expect(both.code).toBe(64);
    expect(both.stderr).toContain('error: give the command either after -- or with --shell, not both');
    const neither = await helper(sandbox, ['exec']);
    expect(neither.code).toBe(64);
    expect(neither.stderr).toContain('error: no command: write it after -- (exec -- pytest -q) or pass --shell');
    const badTimeout = await helper(sandbox, ['exec', '--timeout', '600', '--', 'true']);
    expect(badTimeout.code).toBe(64);
    expect(badTimeout.stderr).toContain('--timeout takes a whole number from 1 to 120');
    expect(sandbox.requests).toHaveLength(0);
  }, 30_000);

  it('read: prints the file text as it is, its path URL-encoded', async () => {
    const name = 'src/a b&c=d é.py';
    const sandbox = await fakeSandbox({ files: { [name]: 'x = 1\nno newline at the end' } });
    const run = await helper(sandbox, ['read', name]);

    expect(run).toEqual({ code: 0, stdout: 'x = 1\nno newline at the end', stderr: '' });
    expect(sandbox.requests[0]).toMatchObject({
      method: 'GET',
      url: '/api/agents/7/sandbox/sandbox-41/files?path=src%2Fa%20b%26c%3Dd%20%C3%A9.py',
      authorization: `Bearer ${sandbox.token}`,
      path: name,
    });
  }, 30_000);

  it('ls and read of a folder: one entry per line, folders with a slash; ls --json prints the listing', async () => {
    const sandbox = await fakeSandbox({ files: { 'calendar_utils.py': BUGGY_CALENDAR, 'tests/test_x.py': 'pass\n' } });

    expect(await helper(sandbox, ['ls'])).toEqual({ code: 0, stdout: 'calendar_utils.py\ntests/\n', stderr: '' });
    expect(await helper(sandbox, ['ls', 'tests'])).toEqual({ code: 0, stdout: 'test_x.py\n', stderr: '' });
    expect(await helper(sandbox, ['read', 'tests'])).toEqual({ code: 0, stdout: 'test_x.py\n', stderr: '' });
    expect(await helper(sandbox, ['ls', 'tests/test_x.py'])).toEqual({
      code: 0,
      stdout: 'tests/test_x.py\n',
      stderr: '',
    });
    const listed = await helper(sandbox, ['ls', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual({
      path: '.',
      entries: [
        { name: 'calendar_utils.py', type: 'file', size: BUGGY_CALENDAR.length },
        { name: 'tests', type: 'dir', size: 0 },
      ],
    });
    expect(steps(sandbox)).toEqual([
      'GET files .',
      'GET files tests',
      'GET files tests',
      'GET files tests/test_x.py',
      'GET files .',
    ]);
  }, 30_000);

  it('write: sends stdin as text/plain, or the file named with --from', async () => {
    const sandbox = await fakeSandbox();
    const fromStdin = await helper(sandbox, ['write', 'notes/plan.md'], '# Plan\n- fix it\n');
    expect(fromStdin).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(sandbox.file('notes/plan.md')).toBe('# Plan\n- fix it\n');
    expect(sandbox.requests[0]).toMatchObject({
      method: 'PUT',
      url: '/api/agents/7/sandbox/sandbox-41/files?path=notes%2Fplan.md',
      authorization: `Bearer ${sandbox.token}`,
      contentType: 'text/plain; charset=utf-8',
    });

    const local = path.join(dir, 'fixed.py');
    fs.writeFileSync(local, FIXED_LINE + '\n');
    expect((await helper(sandbox, ['write', 'calendar_utils.py', '--from', local])).code).toBe(0);
    expect(sandbox.file('calendar_utils.py')).toBe(FIXED_LINE + '\n');

    const missing = await helper(sandbox, ['write', 'x.py', '--from', path.join(dir, 'nowhere.py')]);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain(`error: cannot read ${path.join(dir, 'nowhere.py')}:`);
    expect(sandbox.requests).toHaveLength(2);
  }, 30_000);

  it('submit: prints the result, exits 0 when the hidden tests passed and 1 otherwise', async () => {
    const passing = await fakeSandbox({ grade: () => ({ status: 'passed', tests_passed: 3, tests_total: 3 }) });
    const passed = await helper(passing, ['submit']);
    expect(passed.code).toBe(0);
    expect(JSON.parse(passed.stdout)).toEqual({ status: 'passed', tests_passed: 3, tests_total: 3 });
    expect(passing.requests[0]).toMatchObject({ method: 'POST', step: 'submit' });

    const failing = await fakeSandbox({ grade: () => ({ status: 'failed', tests_passed: 1, tests_total: 3 }) });
    const failed = await helper(failing, ['submit']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toEqual({ status: 'failed', tests_passed: 1, tests_total: 3 });
  }, 30_000);

  it('errors: the detail on stderr and one exit code per kind', async () => {
    const sandbox = await fakeSandbox({ files: { 'a.py': '' } });
    const cases: Array<[string[], NodeJS.ProcessEnv, number, string]> = [
      [['read', '../etc/passwd'], {}, 65, 'error: path must stay inside the workspace: ../etc/passwd (HTTP 400)'],
      [['ls'], { ARENA_SANDBOX_TOKEN: 'sbx_wrong_token' }, 66, 'error: missing or invalid session token (HTTP 401)'],
      [['read', 'missing.py'], {}, 67, 'error: no such file or directory: missing.py (HTTP 404)'],
    ];
    for (const [args, env, code, message] of cases) {
      const run = await helper(sandbox, args, '', env);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({
        args,
        code,
        stderr: `[arena-runner] ${message}\n`,
      });
    }

    sandbox.end('timeout');
    const ended = await helper(sandbox, ['exec', '--', 'true']);
    expect(ended).toEqual({
      code: 68,
      stdout: '',
      stderr: '[arena-runner] error: the session has ended (timeout) (HTTP 409)\n',
    });
  }, 30_000);

  it('errors: 69 past the step cap, 70 when the API cannot be reached, 64 without an address or token', async () => {
    const capped = await fakeSandbox({ maxSteps: 1 });
    expect((await helper(capped, ['ls'])).code).toBe(0);
    const past = await helper(capped, ['ls']);
    expect(past.code).toBe(69);
    expect(past.stderr).toContain("error: the session's 1 steps are used up (HTTP 429)");

    const gone = await fakeSandbox();
    await gone.close();
    sandboxes = sandboxes.filter((s) => s !== gone);
    const unreachable = await helper(gone, ['submit']);
    expect(unreachable.code).toBe(70);
    expect(unreachable.stderr).toMatch(
      /error: could not reach the sandbox API at http:\/\/127\.0\.0\.1:\d+\/\S+: .*ECONNREFUSED/,
    );

    const noAddress = await runToEnd(['sandbox', 'ls'], { ARENA_SANDBOX_TOKEN: 'sbx_t' });
    expect(noAddress.code).toBe(64);
    expect(noAddress.stderr).toContain('error: no session address: pass --api or set ARENA_SANDBOX_API');
    const noToken = await runToEnd(['sandbox', 'ls'], { ARENA_SANDBOX_API: capped.api });
    expect(noToken.code).toBe(64);
    expect(noToken.stderr).toContain('error: no session token: pass --token or set ARENA_SANDBOX_TOKEN');
    const badFlag = await runToEnd(['sandbox', 'ls', '--api', 'ftp://x', '--token', 't']);
    expect(badFlag.code).toBe(64);
    expect(badFlag.stderr).toContain("option '--api <url>' argument 'ftp://x' is invalid");
  }, 30_000);

  it('sends a step again that the arena refused for want of room (503 or 429 with Retry-After), once it may', async () => {
    const busy = await fakeSandbox({
      files: { 'a.py': 'print(1)\n' },
      refuseFirst: [
        { status: 503, retryAfter: '0' },
        { status: 429, retryAfter: '1' },
      ],
    });
    const started = Date.now();
    const read = await helper(busy, ['read', 'a.py']);
    expect(read).toMatchObject({ code: 0, stdout: 'print(1)\n' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(steps(busy)).toEqual(['GET files a.py', 'GET files a.py', 'GET files a.py']);
    // Without Retry-After (the step cap), or any other refusal, it is not sent again.
    const capped = await fakeSandbox({ refuseFirst: [{ status: 429 }] });
    expect((await helper(capped, ['ls'])).code).toBe(69);
    expect(steps(capped)).toEqual(['GET files .']);
  }, 30_000);

  it('--api and --token override the environment, and the token is never printed', async () => {
    const sandbox = await fakeSandbox({ files: { 'a.py': 'print(1)\n' } });
    const run = await runToEnd(['sandbox', 'read', 'a.py', '--api', sandbox.api, '--token', sandbox.token], {
      ARENA_SANDBOX_API: 'http://127.0.0.1:9/api/agents/7/sandbox/sandbox-1',
      ARENA_SANDBOX_TOKEN: 'sbx_stale',
    });
    expect(run).toEqual({ code: 0, stdout: 'print(1)\n', stderr: '' });

    const refused = await helper(sandbox, ['ls'], '', { ARENA_SANDBOX_TOKEN: 'sbx_do_not_print_me' });
    expect(refused.stderr).not.toContain('sbx_do_not_print_me');
  }, 30_000);
});

describe('the agent command in a coding session', () => {
  it('run: gets the session variables and never the agent secret', async () => {
    const arena = await fakeArena();
    const sandbox = await fakeSandbox();
    const fields = sessionPayload(sandbox);
    arena.queue({ ...fields, work_id: sandbox.sessionId });
    const run = startRunner(
      ['run', '--base-url', arena.baseUrl, '--agent', arena.agentId, '--wait', '1', '--', ...NOSY_AGENT],
      {
        ARENA_AGENT_SECRET: arena.secret,
      },
    );
    await until(() => arena.results.length > 0 || run.child.exitCode !== null, 'the answer', 20_000);
    run.child.kill('SIGTERM');
    await run.exited;

    const raw = JSON.stringify(arena.results[0]?.body);
    expect(raw).not.toContain(arena.secret);
    const seen = JSON.parse(arena.results[0]!.body.response as string) as { env: Record<string, string> };
    expect(seen.env).toMatchObject({
      ARENA_SANDBOX_API: sandbox.api,
      ARENA_SANDBOX_TOKEN: sandbox.token,
      ARENA_SANDBOX_SESSION: sandbox.sessionId,
      ARENA_SANDBOX_EXPIRES_AT: fields.sandbox.expires_at,
      ARENA_SANDBOX_MAX_STEPS: '200',
      ARENA_KIND: 'sandbox',
      ARENA_CATEGORY: 'swe',
    });
    expect(seen.env).not.toHaveProperty('ARENA_AGENT_SECRET');
  }, 30_000);

  it('run: an ordinary prompt gets no session variables', async () => {
    const arena = await fakeArena();
    arena.queue({ prompt: 'Say hi' });
    const run = startRunner(
      ['run', '--base-url', arena.baseUrl, '--agent', arena.agentId, '--wait', '1', '--', ...NOSY_AGENT],
      {
        ARENA_AGENT_SECRET: arena.secret,
      },
    );
    await until(() => arena.results.length > 0 || run.child.exitCode !== null, 'the answer', 20_000);
    run.child.kill('SIGTERM');
    await run.exited;
    const seen = JSON.parse(arena.results[0]!.body.response as string) as { env: Record<string, string> };
    expect(Object.keys(seen.env).filter((name) => name.startsWith('ARENA_SANDBOX_'))).toEqual([]);
  }, 30_000);

  describe('run: the command lives until the session expires, not for deadline_seconds', () => {
    const answerAfter = (ms: number): AgentCommand =>
      nodeScript(`process.stdin.resume().on('end', () => setTimeout(() => console.log('done'), ${ms}))`);

    async function pullOnce(command: AgentCommand, fields: Record<string, unknown>) {
      const arena = await fakeArena();
      const stop = new AbortController();
      const kill = new AbortController();
      const done = runPullLoop({
        baseUrl: arena.baseUrl,
        agentId: arena.agentId,
        secret: arena.secret,
        command,
        waitSeconds: 1,
        signal: stop.signal,
        killSignal: kill.signal,
        log: () => {},
      });
      const queuedAt = Date.now();
      try {
        arena.queue(fields);
        await until(() => arena.results.length === 1, 'the result', 20_000);
        return { body: arena.results[0]!.body, afterMs: Date.now() - queuedAt };
      } finally {
        // Also when the wait failed: a loop left running would poll the closed arena for ever.
        stop.abort();
        kill.abort();
        await done;
      }
    }

    it('outlives a short deadline_seconds while the session runs', async () => {
      const sandbox = await fakeSandbox();
      const { body } = await pullOnce(answerAfter(1_500), { deadline_seconds: 1, ...sessionFields(sandbox, 30_000) });
      expect(body).toEqual({ response: 'done', latency_ms: expect.any(Number) });
    }, 30_000);

    it('is stopped when the session expires, long before deadline_seconds', async () => {
      const sandbox = await fakeSandbox();
      const fields = { deadline_seconds: 60, ...sessionFields(sandbox, 1_000) };
      const { body, afterMs } = await pullOnce(answerAfter(20_000), fields);
      expect(body).toEqual({
        error: `command did not finish before the session's deadline (${fields.sandbox.expires_at})`,
        latency_ms: expect.any(Number),
      });
      expect(afterMs).toBeLessThan(5_000);
    }, 30_000);
  });

  it('push: gets the session variables and never the agent secret', async () => {
    const secret = 'agsec_sandbox_push_secret';
    const sandbox = await fakeSandbox();
    const run = startRunner(['push', '--port', '0', '--', ...NOSY_AGENT], { ARENA_AGENT_SECRET: secret });
    await until(() => /listening on (http:\/\/\S+)/.test(run.stderr()), 'the listening URL', 20_000);
    const url = /listening on (http:\/\/\S+)/.exec(run.stderr())![1]!;

    const body = JSON.stringify(sessionPayload(sandbox));
    const res = await request(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        ...signatureHeaders(secret, body, { deliveryId: sandbox.sessionId, timestamp: Date.now() / 1000 }),
      },
    });
    const text = await res.body.text();
    expect(res.statusCode).toBe(200);
    expect(text).not.toContain(secret);
    const seen = JSON.parse((JSON.parse(text) as { response: string }).response) as { env: Record<string, string> };
    expect(seen.env).toMatchObject({
      ARENA_SANDBOX_API: sandbox.api,
      ARENA_SANDBOX_TOKEN: sandbox.token,
      ARENA_SANDBOX_SESSION: sandbox.sessionId,
      ARENA_SANDBOX_MAX_STEPS: '200',
      ARENA_WORK_ID: sandbox.sessionId,
      ARENA_KIND: 'sandbox',
    });
    expect(seen.env).not.toHaveProperty('ARENA_AGENT_SECRET');

    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
  }, 30_000);

  it('push: the command keeps working the session when the arena stops waiting for the summary', async () => {
    const secret = 'agsec_sandbox_push_hangup';
    const sandbox = await fakeSandbox();
    const finished = path.join(dir, 'finished');
    const lines: string[] = [];
    const server = await startPushServer({
      secret,
      port: 0,
      command: nodeScript(
        `process.stdin.resume().on('end', () => setTimeout(() => { require('fs').writeFileSync(${JSON.stringify(finished)}, ''); console.log('summary'); }, 800))`,
      ),
      log: (line) => lines.push(line),
    });
    servers.push(server);

    const body = JSON.stringify(sessionPayload(sandbox));
    const hangUp = new AbortController();
    const delivered = request(server.url, {
      method: 'POST',
      body,
      signal: hangUp.signal,
      headers: {
        'content-type': 'application/json',
        ...signatureHeaders(secret, body, { deliveryId: sandbox.sessionId, timestamp: Date.now() / 1000 }),
      },
    }).catch(() => 'hung up');
    await until(() => lines.some((l) => l.startsWith(`${sandbox.sessionId}: received`)), 'the session to start');
    hangUp.abort();
    expect(await delivered).toBe('hung up');

    await until(() => fs.existsSync(finished), 'the command to finish its work');
    await until(() => lines.some((l) => l.includes('stopped waiting')), 'the log line');
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${sandbox.sessionId}: the arena stopped waiting for the summary`)),
    );
  }, 30_000);
  it('push: refuses a session it could not work with 400, without running the command', async () => {
    const secret = 'agsec_sandbox_push_malformed';
    const sandbox = await fakeSandbox();
    const ran = path.join(dir, 'ran');
    const server = await startPushServer({
      secret,
      port: 0,
      command: nodeScript(`require('fs').writeFileSync(${JSON.stringify(ran)}, ''); console.log('ran')`),
      log: () => {},
    });
    servers.push(server);
    const payload = sessionPayload(sandbox);
    const { token: _token, ...withoutToken } = payload.sandbox;
    const body = JSON.stringify({ ...payload, sandbox: withoutToken });

    const res = await request(server.url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        ...signatureHeaders(secret, body, { deliveryId: sandbox.sessionId, timestamp: Date.now() / 1000 }),
      },
    });
    expect({ status: res.statusCode, body: await res.body.json() }).toEqual({
      status: 400,
      body: { detail: 'not a prompt payload: sandbox.token is missing or invalid' },
    });
    expect(fs.existsSync(ran)).toBe(false);
  }, 30_000);
});

describe('the example agent', () => {
  const agent = (sandbox: FakeSandbox, payload: Record<string, unknown>) =>
    runToEnd([], { ARENA_SANDBOX_API: sandbox.api, ARENA_SANDBOX_TOKEN: sandbox.token }, JSON.stringify(payload), [
      process.execPath,
      EXAMPLE_AGENT,
    ]);

  it('fixes python/leap-year: lists, reads, writes the Gregorian rule, checks 1900 and submits', async () => {
    const sandbox = await fakeSandbox({ files: { 'calendar_utils.py': BUGGY_CALENDAR }, grade: gradeLeapYear });
    const run = await agent(sandbox, sessionPayload(sandbox));

    expect(run.code).toBe(0);
    expect(sandbox.file('calendar_utils.py')).toBe(BUGGY_CALENDAR.replace('    return year % 4 == 0', FIXED_LINE));
    expect(steps(sandbox)).toEqual([
      'GET files .',
      'GET files calendar_utils.py',
      'PUT files calendar_utils.py',
      'POST exec',
      'POST submit',
    ]);
    expect(JSON.parse(sandbox.requests[3]!.body)).toEqual({
      command: ['python3', '-c', 'from calendar_utils import is_leap; print(is_leap(1900))'],
    });
    expect(sandbox.requests.every((r) => r.authorization === `Bearer ${sandbox.token}`)).toBe(true);
    expect(run.stdout).toBe(
      'python/leap-year: applied the Gregorian rule (is_leap(1900) is now False); hidden tests 4/4, passed\n',
    );
  }, 30_000);

  it('submits any other task unchanged, so it fails honestly', async () => {
    const sandbox = await fakeSandbox({ files: { 'slugify.js': 'module.exports = (s) => s;\n' } });
    const run = await agent(sandbox, sessionPayload(sandbox, 'Make slugify lower-case its input.'));

    expect(run.code).toBe(0);
    expect(steps(sandbox)).toEqual(['GET files .', 'POST submit']);
    expect(sandbox.file('slugify.js')).toBe('module.exports = (s) => s;\n');
    expect(run.stdout).toBe(
      'no scripted fix for this task; submitted the workspace unchanged: hidden tests 0/1, failed\n',
    );
  }, 30_000);

  it('works a session under arena-runner run, its summary posted as the response', async () => {
    const arena = await fakeArena();
    const sandbox = await fakeSandbox({ files: { 'calendar_utils.py': BUGGY_CALENDAR }, grade: gradeLeapYear });
    arena.queue({ ...sessionPayload(sandbox), work_id: sandbox.sessionId });
    const run = startRunner(
      [
        'run',
        '--base-url',
        arena.baseUrl,
        '--agent',
        arena.agentId,
        '--wait',
        '1',
        '--',
        process.execPath,
        EXAMPLE_AGENT,
      ],
      { ARENA_AGENT_SECRET: arena.secret },
    );
    await until(() => arena.results.length > 0 || run.child.exitCode !== null, 'the summary', 20_000);
    run.child.kill('SIGTERM');
    await run.exited;

    expect(arena.results[0]).toMatchObject({
      workId: sandbox.sessionId,
      body: {
        response: 'python/leap-year: applied the Gregorian rule (is_leap(1900) is now False); hidden tests 4/4, passed',
      },
    });
    expect(sandbox.submitted).toBe(true);
    expect(sandbox.file('calendar_utils.py')).toContain(FIXED_LINE);
  }, 30_000);
});
