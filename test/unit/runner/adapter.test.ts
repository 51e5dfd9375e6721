import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { adapterEnv, runAgentCommand } from '../../../runner/src/adapter';
import { parseDelivery, type PromptDelivery } from '../../../runner/src/payload';
import { isRunning, nodeScript } from '../../runner/support/wait';
import { until } from '../../support/wait';

function delivery(fields: Record<string, unknown> = {}): PromptDelivery {
  const raw = JSON.stringify({
    prompt_id: 'p-17',
    prompt: 'Name a prime — 🚀',
    category: 'math',
    deadline_seconds: 30,
    kind: 'gym',
    work_id: 'gym-12',
    ...fields,
  });
  const parsed = parseDelivery(raw);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.delivery;
}

describe('runAgentCommand', () => {
  it('gives the command the payload on stdin and the contract variables, and answers its trimmed stdout', async () => {
    const echo = nodeScript(`
      let input = '';
      process.stdin.on('data', (c) => (input += c)).on('end', () => {
        const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(ARENA|TESSERAX)_/.test(k)));
        process.stdout.write('\\n  ' + JSON.stringify({ stdin: JSON.parse(input), env }) + '  \\n\\n');
      });`);
    const given = delivery();

    const outcome = await runAgentCommand(echo, given);

    expect(outcome.ok).toBe(true);
    const answer = outcome.ok ? outcome.response : '';
    expect(answer.startsWith('{') && answer.endsWith('}')).toBe(true);
    const seen = JSON.parse(answer) as { stdin: unknown; env: Record<string, string> };
    expect(seen.stdin).toEqual(JSON.parse(given.raw));
    const expected = {
      PROMPT: 'Name a prime — 🚀',
      PROMPT_ID: 'p-17',
      CATEGORY: 'math',
      DEADLINE_SECONDS: '30',
      WORK_ID: 'gym-12',
      KIND: 'gym',
    };
    for (const [name, value] of Object.entries(expected)) {
      expect(seen.env[`ARENA_${name}`]).toBe(value);
      expect(seen.env[`TESSERAX_${name}`]).toBe(value);
    }
  });

  it('runs the command with the environment it carries, and only the basics of the runner environment without one', async () => {
    const names = `process.stdout.write(JSON.stringify(Object.keys(process.env).filter((k) => !/^(ARENA|TESSERAX)_/.test(k)).sort()))`;
    const carried = await runAgentCommand({ ...nodeScript(names), env: { RUNNER_TEST_MARK: 'carried' } }, delivery());
    expect(carried).toEqual({ ok: true, response: '["RUNNER_TEST_MARK"]' });

    process.env.RUNNER_TEST_MARK = 'not for the command';
    try {
      const outcome = await runAgentCommand(nodeScript(names), delivery());
      const seen = JSON.parse(outcome.ok ? outcome.response : '[]') as string[];
      expect(seen).toContain('PATH');
      expect(seen).not.toContain('RUNNER_TEST_MARK');
    } finally {
      delete process.env.RUNNER_TEST_MARK;
    }
  });

  it('reports a non-zero exit with the last line of stderr', async () => {
    const failing = nodeScript(
      `console.error('loading model'); console.error('  RuntimeError: out of credits  '); console.error(''); process.exit(3);`,
    );
    expect(await runAgentCommand(failing, delivery())).toEqual({
      ok: false,
      error: 'command exited with code 3: RuntimeError: out of credits',
    });
  });

  it('reports a non-zero exit without stderr, and shortens a very long stderr line', async () => {
    expect(await runAgentCommand(nodeScript('process.exit(2)'), delivery())).toEqual({
      ok: false,
      error: 'command exited with code 2',
    });
    const outcome = await runAgentCommand(nodeScript(`console.error('x'.repeat(5000)); process.exit(1)`), delivery());
    expect(outcome.ok).toBe(false);
    const error = outcome.ok ? '' : outcome.error;
    expect(error.startsWith('command exited with code 1: xxx')).toBe(true);
    expect(error.length).toBeLessThanOrEqual('command exited with code 1: '.length + 500);
  });

  it('reports empty or blank output as an error', async () => {
    expect(await runAgentCommand(nodeScript(`process.stdout.write('  \\n\\t\\n')`), delivery())).toEqual({
      ok: false,
      error: 'command produced no output',
    });
  });

  it('kills the command and everything it started at the deadline', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'runner-adapter-'));
    const pidFile = path.join(dir, 'pids');
    // The command starts a child of its own, then both sleep far past the 1 s deadline.
    const sleeper = nodeScript(`
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, process.pid + ' ' + child.pid);
      process.stdin.resume();
      setTimeout(() => {}, 60000);`);
    const started = Date.now();

    const outcome = await runAgentCommand(sleeper, delivery({ deadline_seconds: 1 }));

    expect(outcome).toEqual({ ok: false, error: 'command did not finish within 1 s' });
    expect(Date.now() - started).toBeLessThan(4_000);
    const pids = (await fs.readFile(pidFile, 'utf8')).split(' ').map(Number);
    await until(() => pids.every((pid) => !isRunning(pid)), 'the command and its child to be gone', 3_000);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('stops early and reports an error when the output passes the arena limit', async () => {
    const flood = nodeScript(`process.stdout.write('x'.repeat(100001)); setTimeout(() => {}, 60000);`);
    const started = Date.now();
    expect(await runAgentCommand(flood, delivery())).toEqual({ ok: false, error: 'output exceeds 100000 characters' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('accepts an answer of exactly the limit once trimmed', async () => {
    const outcome = await runAgentCommand(
      nodeScript(`process.stdout.write('y'.repeat(100000) + '\\n'.repeat(500))`),
      delivery(),
    );
    expect(outcome.ok && outcome.response.length).toBe(100000);
  });

  it('kills the command when the runner is forced to stop', async () => {
    const kill = new AbortController();
    const running = runAgentCommand(nodeScript('setTimeout(() => {}, 60000)'), delivery(), { killSignal: kill.signal });
    setTimeout(() => kill.abort(), 200);
    expect(await running).toEqual({ ok: false, error: 'runner stopped before the command finished' });
  });

  it('reports a command that cannot be started', async () => {
    const outcome = await runAgentCommand({ command: 'arena-no-such-agent-command', args: [] }, delivery());
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.error).toMatch(/^could not start command arena-no-such-agent-command: .*ENOENT/);
  });
});

describe('adapterEnv', () => {
  it('sets work id and kind from the caller when the payload has none (push deliveries)', () => {
    const push = delivery({ kind: undefined, work_id: undefined }).payload;
    expect(adapterEnv(push)).not.toHaveProperty('ARENA_WORK_ID');
    expect(adapterEnv(push, { workId: 'main-230', kind: 'main' })).toMatchObject({
      ARENA_WORK_ID: 'main-230',
      TESSERAX_WORK_ID: 'main-230',
      ARENA_KIND: 'main',
    });
  });
});
