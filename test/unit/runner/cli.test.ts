import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { signatureHeaders } from '../../../runner/src/signing';
import { killRunners, startRunner } from '../../runner/support/cli';
import { startFakeArena, type FakeArena } from '../../runner/support/fake-arena';
import { isRunning } from '../../runner/support/wait';
import { until } from '../../support/wait';

// Answers after a second, so a test can stop the runner while it runs; it touches $RUNNER_TEST_STARTED
// (when set) once it is running, so the test knows when that is.
const AGENT = [
  process.execPath,
  '-e',
  `if (process.env.RUNNER_TEST_STARTED) require('fs').writeFileSync(process.env.RUNNER_TEST_STARTED, '');
   let s = ''; process.stdin.on('data', (c) => (s += c)).on('end', () => setTimeout(() => console.log('done: ' + JSON.parse(s).prompt), 1000));`,
];

let arenas: FakeArena[] = [];

afterEach(async () => {
  killRunners();
  await Promise.all(arenas.map((a) => a.close()));
  arenas = [];
});

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => startRunner(args, env);

async function fakeArena(): Promise<FakeArena> {
  const arena = await startFakeArena();
  arenas.push(arena);
  return arena;
}

describe('arena-runner run', () => {
  it('on Ctrl-C, finishes the running prompt, posts it, and exits 0', async () => {
    const arena = await fakeArena();
    arena.queue({ prompt: 'Hello there' });
    const started = path.join(os.tmpdir(), `arena-runner-cli-started-${process.pid}-${Date.now()}`);
    const run = cli(
      [
        'run',
        '--base-url',
        arena.baseUrl,
        '--agent',
        arena.agentId,
        '--wait',
        '1',
        '--env',
        'RUNNER_TEST_STARTED',
        '--',
        ...AGENT,
      ],
      {
        ARENA_AGENT_SECRET: arena.secret,
        RUNNER_TEST_STARTED: started,
      },
    );
    // Only once the command runs: a process still being started has not left the runner's group yet.
    await until(() => fs.existsSync(started), 'the command to start', 20_000);
    fs.rmSync(started);

    // What a terminal does on Ctrl-C: SIGINT to the whole foreground group, which must not reach the command.
    process.kill(-run.child.pid!, 'SIGINT');

    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(arena.results).toHaveLength(1);
    expect(arena.results[0]!.body).toEqual({ response: 'done: Hello there', latency_ms: expect.any(Number) });
    expect(run.stderr()).toMatch(/^\[arena-runner\] sandbox-1: answered in \d+ ms$/m);
    expect(run.stderr()).toMatch(/\[arena-runner\] stopped\n$/);
    expect(run.stderr()).not.toContain(arena.secret);
  }, 30_000);

  it('on a second signal, kills the running command and exits at once', async () => {
    const arena = await fakeArena();
    arena.queue({ prompt: 'Never mind' });
    const pidFile = path.join(os.tmpdir(), `arena-runner-cli-${process.pid}-${Date.now()}`);
    const slow = [
      process.execPath,
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setTimeout(() => {}, 20000)`,
    ];
    const run = cli(['run', '--base-url', arena.baseUrl, '--agent', arena.agentId, '--wait', '1', '--', ...slow], {
      ARENA_AGENT_SECRET: arena.secret,
    });
    await until(() => fs.existsSync(pidFile), 'the command to start', 20_000);
    const commandPid = Number(fs.readFileSync(pidFile, 'utf8'));
    fs.rmSync(pidFile);

    run.child.kill('SIGINT');
    await until(() => run.stderr().includes('SIGINT: stopping'), 'the first signal to be seen');
    run.child.kill('SIGINT');

    expect(await run.exited).toEqual({ code: 130, signal: null });
    expect(arena.results).toHaveLength(0);
    expect(run.stderr()).toContain('SIGINT again: killing running commands');
    await until(() => !isRunning(commandPid), 'the command to be killed', 3_000);
  }, 30_000);

  it('exits 1 with a clear message on a wrong secret', async () => {
    const arena = await fakeArena();
    const run = cli([
      'run',
      '--base-url',
      arena.baseUrl,
      '--agent',
      arena.agentId,
      '--secret',
      'agsec_wrong',
      '--',
      ...AGENT,
    ]);

    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.stderr()).toContain(
      '[arena-runner] error: the arena rejected the secret for agent 7 (HTTP 403: invalid agent secret)',
    );
    expect(run.stderr()).not.toMatch(/^\s+at /m);
  }, 30_000);

  it('runs pull mode without the word run, as the arena shows run_command', async () => {
    const arena = await fakeArena();
    const run = cli(['--base-url', arena.baseUrl, '--agent', arena.agentId, '--secret', 'agsec_wrong', '--', ...AGENT]);
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.stderr()).toContain('rejected the secret for agent 7');
  }, 30_000);

  it('exits 1 when no secret is given', async () => {
    const run = cli(['run', '--base-url', 'http://127.0.0.1:9', '--agent', '7', '--', 'true']);
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.stderr()).toContain('missing agent secret: pass --secret or set ARENA_AGENT_SECRET');
  }, 30_000);

  it('refuses flags it cannot use', async () => {
    const run = cli(['run', '--base-url', 'ftp://arena', '--agent', 'seven', '--', 'true']);
    expect((await run.exited).code).toBe(1);
    expect(run.stderr()).toContain("option '--base-url <url>' argument 'ftp://arena' is invalid");
  }, 30_000);
});

// Answers with everything it can see of its own process: environment and arguments.
const NOSY_AGENT = [
  process.execPath,
  '-e',
  `process.stdin.resume().on('end', () => process.stdout.write(JSON.stringify({ env: process.env, argv: process.argv })))`,
];

interface Seen {
  env: Record<string, string>;
  argv: string[];
}

async function answerOnce(
  arena: FakeArena,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ seen: Seen; raw: string }> {
  arena.queue({ prompt: 'What do you see?' });
  const run = cli(
    ['run', '--base-url', arena.baseUrl, '--agent', arena.agentId, '--wait', '1', ...args, '--', ...NOSY_AGENT],
    env,
  );
  await until(() => arena.results.length > 0 || run.child.exitCode !== null, 'the answer', 20_000);
  run.child.kill('SIGTERM');
  await run.exited;
  const raw = JSON.stringify(arena.results[0]?.body);
  expect(arena.results[0]?.body).toHaveProperty('response');
  return { seen: JSON.parse(arena.results[0]!.body.response as string) as Seen, raw };
}

describe('the agent command environment', () => {
  it('has the basics and the contract variables, but not the agent secret or anything else of the runner', async () => {
    const arena = await fakeArena();
    const { seen, raw } = await answerOnce(arena, [], {
      ARENA_AGENT_SECRET: arena.secret,
      RUNNER_TEST_UNLISTED: 'not for the agent',
      PATH: process.env.PATH,
      HOME: '/home/owner',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TZ: 'UTC',
    });

    expect(raw).not.toContain(arena.secret);
    expect(seen.env).toMatchObject({
      PATH: process.env.PATH,
      HOME: '/home/owner',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TZ: 'UTC',
    });
    expect(seen.env).toMatchObject({
      ARENA_PROMPT: 'What do you see?',
      TESSERAX_PROMPT: 'What do you see?',
      ARENA_WORK_ID: 'sandbox-1',
    });
    expect(seen.env).not.toHaveProperty('ARENA_AGENT_SECRET');
    expect(seen.env).not.toHaveProperty('RUNNER_TEST_UNLISTED');
    expect(seen.env).not.toHaveProperty('ARENA_BASE_URL');
  }, 30_000);

  it('also has the variables named with --env, taken from the runner environment', async () => {
    const arena = await fakeArena();
    const { seen } = await answerOnce(arena, ['--env', 'OPENAI_API_KEY', '--env', 'RUNNER_TEST_PASSED'], {
      ARENA_AGENT_SECRET: arena.secret,
      OPENAI_API_KEY: 'sk-owner-chose-to-share',
      RUNNER_TEST_PASSED: 'passed on',
      RUNNER_TEST_UNLISTED: 'not for the agent',
    });
    expect(seen.env).toMatchObject({ OPENAI_API_KEY: 'sk-owner-chose-to-share', RUNNER_TEST_PASSED: 'passed on' });
    expect(seen.env).not.toHaveProperty('RUNNER_TEST_UNLISTED');
  }, 30_000);

  it('refuses to start when the secret would reach the command', async () => {
    const secret = 'agsec_never_for_the_agent';
    const cases: Array<{ args: string[]; env?: NodeJS.ProcessEnv; message: string }> = [
      {
        args: ['--env', 'ARENA_AGENT_SECRET'],
        message: 'error: --env ARENA_AGENT_SECRET: the agent secret is never passed to the command',
      },
      {
        args: ['--env', 'AGENT_KEY'],
        env: { AGENT_KEY: `Bearer ${secret}` },
        message: 'error: --env AGENT_KEY: it holds the agent secret, which is never passed to the command',
      },
      {
        args: ['--env', 'RUNNER_TEST_NOT_SET'],
        message: 'error: --env RUNNER_TEST_NOT_SET: not set in the runner environment',
      },
      {
        args: ['--', 'agent', `--key=${secret}`],
        message: 'error: the agent command arguments contain the agent secret; give it no secret (the runner keeps it)',
      },
    ];
    for (const { args, env, message } of cases) {
      const command = args.includes('--') ? [] : ['--', 'true'];
      const run = cli(['run', '--base-url', 'http://127.0.0.1:9', '--agent', '7', ...args, ...command], {
        ARENA_AGENT_SECRET: secret,
        ...env,
      });
      expect(await run.exited).toEqual({ code: 1, signal: null });
      expect(run.stderr()).toContain(message);
      expect(run.stderr()).not.toContain(secret);
    }
  }, 30_000);

  it('refuses --env with a value, so values stay out of the process list', async () => {
    const run = cli(
      ['run', '--base-url', 'http://127.0.0.1:9', '--agent', '7', '--env', 'OPENAI_API_KEY=sk-123', '--', 'true'],
      { ARENA_AGENT_SECRET: 'agsec_x' },
    );
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.stderr()).toContain(
      "option '--env <name>' argument 'OPENAI_API_KEY=sk-123' is invalid. --env takes a variable name; set its value in the runner environment",
    );
  }, 30_000);
});

describe('arena-runner push', () => {
  it('keeps the agent secret from the command it runs', async () => {
    const secret = 'agsec_cli_push_secret_env';
    const run = cli(['push', '--port', '0', '--', ...NOSY_AGENT], {
      ARENA_AGENT_SECRET: secret,
      RUNNER_TEST_UNLISTED: 'not for the agent',
    });
    await until(() => /listening on (http:\/\/\S+)/.test(run.stderr()), 'the listening URL', 20_000);
    const url = /listening on (http:\/\/\S+)/.exec(run.stderr())![1]!;

    const prompt = JSON.stringify({
      prompt_id: '5',
      prompt: 'What do you see?',
      category: 'chat',
      deadline_seconds: 15,
    });
    const res = await request(url, {
      method: 'POST',
      body: prompt,
      headers: {
        'content-type': 'application/json',
        ...signatureHeaders(secret, prompt, { deliveryId: 'main-5', timestamp: Date.now() / 1000 }),
      },
    });
    const text = await res.body.text();
    expect(res.statusCode).toBe(200);
    expect(text).not.toContain(secret);
    const seen = JSON.parse((JSON.parse(text) as { response: string }).response) as Seen;
    expect(seen.env).toMatchObject({ ARENA_PROMPT: 'What do you see?', ARENA_WORK_ID: 'main-5' });
    expect(seen.env).not.toHaveProperty('RUNNER_TEST_UNLISTED');

    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
  }, 30_000);

  it('refuses a --tolerance it cannot use', async () => {
    const run = cli(['push', '--tolerance', '0', '--', 'true'], { ARENA_AGENT_SECRET: 'agsec_x' });
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.stderr()).toContain('--tolerance takes a whole number from 1 to 3600');
  }, 30_000);

  it('prints its URL, answers a ping, and exits 0 on SIGTERM', async () => {
    const secret = 'agsec_cli_push_secret';
    const run = cli(['push', '--port', '0', '--', ...AGENT], { ARENA_AGENT_SECRET: secret });
    await until(() => /listening on (http:\/\/\S+)/.test(run.stderr()), 'the listening URL', 20_000);
    const url = /listening on (http:\/\/\S+)/.exec(run.stderr())![1]!;

    const ping = JSON.stringify({ prompt_id: 'ping-1', prompt: 'ping', category: 'ping', deadline_seconds: 15 });
    const res = await request(url, {
      method: 'POST',
      body: ping,
      headers: {
        'content-type': 'application/json',
        ...signatureHeaders(secret, ping, { deliveryId: 'ping-1', timestamp: Date.now() / 1000 }),
      },
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ response: 'pong' });

    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
  }, 30_000);
});
