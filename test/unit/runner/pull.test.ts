import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentCommand } from '../../../runner/src/adapter';
import { RunnerFatalError } from '../../../runner/src/arena-client';
import { runPullLoop, type PullLoopOptions } from '../../../runner/src/pull';
import { startFakeArena, type FakeArena, type FakeArenaOptions } from '../../runner/support/fake-arena';
import { isRunning, nodeScript } from '../../runner/support/wait';
import { until } from '../../support/wait';

// Answers "answer to <prompt>" after sleeping the milliseconds given in the payload's `sleep_ms`,
// and reports when it ran, so tests can see prompts overlap.
const agent = nodeScript(`
  let input = '';
  process.stdin.on('data', (c) => (input += c)).on('end', () => {
    const payload = JSON.parse(input);
    const startedAt = Date.now();
    setTimeout(() => {
      if (payload.fail) { console.error('agent failed: ' + payload.fail); process.exit(2); }
      console.log(JSON.stringify({ answer: 'answer to ' + process.env.ARENA_PROMPT, startedAt, endedAt: Date.now() }));
    }, payload.sleep_ms || 0);
  });`);

interface Running {
  arena: FakeArena;
  stop: AbortController;
  done: Promise<void>;
  lines: string[];
}

let arenas: FakeArena[] = [];
let stops: AbortController[] = [];

afterEach(async () => {
  for (const stop of stops) stop.abort();
  await Promise.all(arenas.map((a) => a.close()));
  arenas = [];
  stops = [];
});

async function fakeArena(opts?: FakeArenaOptions): Promise<FakeArena> {
  const arena = await startFakeArena(opts);
  arenas.push(arena);
  return arena;
}

function startLoop(arena: FakeArena, extra: Partial<PullLoopOptions> = {}): Running {
  const stop = new AbortController();
  stops.push(stop);
  const lines: string[] = [];
  const done = runPullLoop({
    baseUrl: arena.baseUrl,
    agentId: arena.agentId,
    secret: arena.secret,
    command: agent,
    waitSeconds: 2,
    signal: stop.signal,
    log: (line) => lines.push(line),
    backoff: { initialMs: 50, maxMs: 200 },
    ...extra,
  });
  return { arena, stop, done, lines };
}

function answerOf(body: Record<string, unknown>): { answer: string; startedAt: number; endedAt: number } {
  return JSON.parse(body.response as string);
}

describe('runPullLoop', () => {
  it('answers a prompt and posts the response with its latency and the secret', async () => {
    const arena = await fakeArena();
    const running = startLoop(arena);
    const workId = arena.queue({ prompt: 'What is 2+2?', sleep_ms: 100 });

    await until(() => arena.results.length === 1, 'the result');
    const result = arena.results[0]!;
    expect(result.workId).toBe(workId);
    expect(result.secret).toBe(arena.secret);
    expect(Object.keys(result.body).sort()).toEqual(['latency_ms', 'response']);
    expect(answerOf(result.body).answer).toBe('answer to What is 2+2?');
    expect(Number.isInteger(result.body.latency_ms)).toBe(true);
    expect(result.body.latency_ms).toBeGreaterThanOrEqual(100);

    running.stop.abort();
    await running.done;
    expect(running.lines).toContainEqual(expect.stringMatching(new RegExp(`^${workId}: answered in \\d+ ms$`)));
    expect(running.lines.join('\n')).not.toContain(arena.secret);
  });

  it('posts an error when the command fails', async () => {
    const arena = await fakeArena();
    const running = startLoop(arena);
    arena.queue({ fail: 'no model configured' });

    await until(() => arena.results.length === 1, 'the result');
    expect(arena.results[0]!.body).toEqual({
      error: 'command exited with code 2: agent failed: no model configured',
      latency_ms: expect.any(Number),
    });
    running.stop.abort();
    await running.done;
  });

  it('drops a result the arena refuses with 409, logs why, and keeps working', async () => {
    const arena = await fakeArena({
      onResult: (r) =>
        r.workId === 'sandbox-1'
          ? { status: 409, body: { detail: 'the deadline passed before the result arrived' } }
          : undefined,
    });
    const running = startLoop(arena);
    arena.queue();
    await until(() => running.lines.some((l) => l.includes('deadline passed')), 'the refusal in the log');
    arena.queue();

    await until(() => arena.results.length === 1, 'the second result');
    expect(arena.results[0]!.workId).toBe('sandbox-2');
    expect(running.lines).toContainEqual(
      expect.stringMatching(
        /^sandbox-1: answered in \d+ ms, but the arena did not record it \(HTTP 409\): the deadline passed before the result arrived$/,
      ),
    );
    expect(running.lines.filter((l) => l.startsWith('sandbox-1: answered'))).toHaveLength(1);
    running.stop.abort();
    await running.done;
  });

  it('says what the arena recorded, not only what the command did', async () => {
    const arena = await fakeArena({
      onResult: (r) => ({
        status: 200,
        body: { work_id: r.workId, recorded: true, status: 'error', error: 'the arena ended it first' },
      }),
    });
    const running = startLoop(arena);
    arena.queue();
    await until(() => running.lines.some((l) => l.startsWith('sandbox-1: answered')), 'the line');
    expect(running.lines).toContainEqual(
      expect.stringMatching(
        /^sandbox-1: answered in \d+ ms; the arena recorded it as error: the arena ended it first$/,
      ),
    );
    running.stop.abort();
    await running.done;
  });

  it('retries posting a result after a 503', async () => {
    let refused = 0;
    const arena = await fakeArena({
      onResult: () => (refused++ === 0 ? { status: 503, body: { detail: 'database unavailable' } } : undefined),
    });
    const running = startLoop(arena);
    arena.queue();

    await until(() => arena.results.length === 1, 'the result after a retry');
    expect(refused).toBe(2);
    expect(running.lines).toContainEqual(
      expect.stringMatching(/^sandbox-1: posting the result failed \(HTTP 503\); retrying in/),
    );
    running.stop.abort();
    await running.done;
  });

  it.each([
    [
      403,
      'wrong secret',
      { secret: 'agsec_wrong' },
      /rejected the secret for agent 7 \(HTTP 403: invalid agent secret\)/,
    ],
    [
      404,
      'unknown agent',
      { agentId: '8' },
      /agent 8 was not found at http:\/\/127\.0\.0\.1:\d+ \(HTTP 404: agent not found\)/,
    ],
  ])('stops with a fatal error on %s (%s)', async (_status, _case, override, message) => {
    const arena = await fakeArena();
    const running = startLoop(arena, override);
    await expect(running.done).rejects.toThrow(RunnerFatalError);
    await expect(running.done).rejects.toThrow(message);
  });

  it('stops with the arena detail when the agent cannot take work (409)', async () => {
    const arena = await fakeArena({ onNext: () => ({ status: 409, body: { detail: 'agent is not in pull mode' } }) });
    const running = startLoop(arena, { concurrency: 3 });
    await expect(running.done).rejects.toThrow('agent 7 cannot take work (HTTP 409): agent is not in pull mode');
  });

  it('stops before asking for work when the arena speaks another protocol version', async () => {
    const arena = await fakeArena({ version: { status: 200, body: { version: 2 } } });
    arena.queue();
    const running = startLoop(arena);
    await expect(running.done).rejects.toThrow(RunnerFatalError);
    await expect(running.done).rejects.toThrow(
      `the arena at ${arena.baseUrl} speaks protocol version 2 and this runner speaks 1: run the runner that arena serves (see ${arena.baseUrl}/downloads/)`,
    );
    expect({ checks: arena.versionChecks, polls: arena.polls }).toEqual({ checks: 1, polls: 0 });
  });

  it.each([
    ['answers 404', { status: 404, body: { detail: 'route not found' } }, 'GET /api/version answered HTTP 404'],
    [
      'answers something that is not JSON',
      { status: 200, body: undefined },
      'GET /api/version failed: the answer is not JSON',
    ],
  ])('goes on, saying so, when the version %s', async (_case, version, reason) => {
    const arena = await fakeArena({ version });
    arena.queue();
    const running = startLoop(arena);
    await until(() => arena.results.length === 1, 'the answer');
    expect(running.lines[0]).toBe(`could not check the arena's protocol version (${reason}); going on`);
    running.stop.abort();
    await running.done;
  });

  it('backs off after a 503, honours Retry-After on a 429, then recovers', async () => {
    const arena = await fakeArena({
      onNext: (n) => {
        if (n === 1) return { status: 503, body: { detail: 'temporal unavailable' } };
        if (n === 2) return { status: 429, body: { detail: 'slow down' }, headers: { 'retry-after': '1' } };
        return undefined;
      },
    });
    const running = startLoop(arena);
    await until(() => arena.polls >= 3, 'polling to resume');
    arena.queue();

    await until(() => arena.results.length === 1, 'the result after recovery');
    expect(running.lines).toContainEqual(expect.stringMatching(/^work\/next failed \(HTTP 503\); retrying in \d+ ms$/));
    expect(running.lines).toContain('work/next failed (HTTP 429); retrying in 1.0 s');
    running.stop.abort();
    await running.done;
  });

  it('keeps retrying while the arena cannot be reached', async () => {
    const arena = await fakeArena();
    const unreachable = `http://127.0.0.1:${new URL(arena.baseUrl).port}`;
    await arena.close();
    arenas = [];
    const running = startLoop({ ...arena, baseUrl: unreachable });
    await until(() => running.lines.filter((l) => l.includes('ECONNREFUSED')).length >= 3, 'three refused connections');
    running.stop.abort();
    await running.done;
  });

  it('runs two prompts at once with concurrency 2', async () => {
    const arena = await fakeArena();
    const running = startLoop(arena, { concurrency: 2 });
    arena.queue({ sleep_ms: 800 });
    arena.queue({ sleep_ms: 800 });

    await until(() => arena.results.length === 2, 'both results');
    const [a, b] = arena.results.map((r) => answerOf(r.body));
    expect(Math.max(a!.startedAt, b!.startedAt)).toBeLessThan(Math.min(a!.endedAt, b!.endedAt));
    running.stop.abort();
    await running.done;
  });

  it('on stop, aborts the long-poll at once but finishes the running prompt and posts it', async () => {
    const arena = await fakeArena();
    const running = startLoop(arena, { waitSeconds: 25, concurrency: 2 });
    arena.queue({ sleep_ms: 1000 });
    await until(
      () => arena.leases.length === 1 && arena.polls === 2,
      'the prompt to be leased and the free loop to poll again',
    );

    running.stop.abort();
    await running.done;
    expect(arena.results).toHaveLength(1);
    expect(answerOf(arena.results[0]!.body).answer).toBe('answer to Say hi');
    expect(running.lines).toContain('stopping: finishing 1 running prompt first');
    expect(running.lines.at(-1)).toBe('stopped');
  });

  it('stops at once when nothing runs, even during a long wait', async () => {
    const arena = await fakeArena();
    const running = startLoop(arena, { waitSeconds: 25 });
    await until(() => arena.polls === 1, 'the first poll');
    const stoppedAt = Date.now();
    running.stop.abort();
    await running.done;
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
  });
});

/**
 * `--keep-running`: the command starts once and answers a line per prompt. This Python agent says
 * which process answered and how many prompts it has seen, and fails on request in each of the
 * ways a kept process can.
 */
const LINE_AGENT: AgentCommand = {
  command: 'python3',
  args: [
    '-c',
    [
      'import json, os, sys, time',
      'seen = 0',
      'for line in sys.stdin:',
      '    p = json.loads(line); seen += 1',
      '    if p.get("crash"): print("boom: " + p["crash"], file=sys.stderr, flush=True); sys.exit(3)',
      '    time.sleep(p.get("sleep_ms", 0) / 1000)',
      '    if p.get("garble"): print("not an answer", flush=True); continue',
      '    if p.get("fail"): print(json.dumps({"error": p["fail"]}), flush=True); continue',
      '    facts = {"pid": os.getpid(), "seen": seen, "prompt": p["prompt"], "work_id": p.get("work_id"), "env": os.environ.get("ARENA_PROMPT")}',
      '    print(json.dumps({"response": json.dumps(facts)}), flush=True)',
    ].join('\n'),
  ],
};

describe('runPullLoop --keep-running', () => {
  const facts = (i: number, arena: FakeArena) =>
    JSON.parse(arena.results[i]!.body.response as string) as {
      pid: number;
      seen: number;
      prompt: string;
      work_id: string;
    };

  it('answers every prompt from one process, a line each, with the payload in the line', async () => {
    const arena = await fakeArena();
    const running = startLoop(arena, { command: LINE_AGENT, keepRunning: true });
    const ids = [arena.queue({ prompt: 'one' }), arena.queue({ prompt: 'two' }), arena.queue({ prompt: 'three' })];
    await until(() => arena.results.length === 3, 'three results');
    const answers = [0, 1, 2].map((i) => facts(i, arena));
    expect(answers.map((a) => [a.prompt, a.seen, a.work_id])).toEqual([
      ['one', 1, ids[0]],
      ['two', 2, ids[1]],
      ['three', 3, ids[2]],
    ]);
    expect(new Set(answers.map((a) => a.pid)).size).toBe(1);
    // The prompt is in the line, not the environment, which stays the same for every prompt.
    expect(JSON.parse(arena.results[0]!.body.response as string).env).toBeNull();
    running.stop.abort();
    await running.done;
    // Stopped with the runner: its stdin closed, it exited.
    expect(isRunning(answers[0]!.pid)).toBe(false);
  });

  it("posts the agent's error line and keeps the process; replaces it after a garbled line, a crash or a missed deadline", async () => {
    const arena = await fakeArena();
    const running = startLoop(arena, { command: LINE_AGENT, keepRunning: true });
    const post = async (fields: Record<string, unknown>) => {
      const before = arena.results.length;
      arena.queue(fields);
      await until(() => arena.results.length === before + 1, 'the result');
      return arena.results[before]!.body;
    };
    const first = JSON.parse((await post({ prompt: 'a' })).response as string).pid;
    expect(await post({ fail: 'no model configured' })).toEqual({
      error: 'no model configured',
      latency_ms: expect.any(Number),
    });
    // The same process: an error line is an answer.
    expect(JSON.parse((await post({ prompt: 'b' })).response as string)).toMatchObject({ pid: first, seen: 3 });

    expect((await post({ garble: true })).error).toBe(
      'the agent process answered a line that is not {"response": "..."} or {"error": "..."}',
    );
    const second = JSON.parse((await post({ prompt: 'c' })).response as string);
    expect(second).toMatchObject({ seen: 1 });
    expect(second.pid).not.toBe(first);
    expect(isRunning(first)).toBe(false);

    expect((await post({ crash: 'out of memory' })).error).toBe(
      'the agent process exited with code 3: boom: out of memory',
    );
    const third = JSON.parse((await post({ prompt: 'd' })).response as string);
    expect(third).toMatchObject({ seen: 1 });

    expect((await post({ deadline_seconds: 1, sleep_ms: 5_000 })).error).toBe('command did not finish within 1 s');
    const fourth = JSON.parse((await post({ prompt: 'e' })).response as string);
    expect(fourth).toMatchObject({ seen: 1 });
    expect(fourth.pid).not.toBe(third.pid);
    expect(isRunning(third.pid)).toBe(false);
    running.stop.abort();
    await running.done;
  }, 20_000);

  const example = path.resolve(__dirname, '../../../examples/line-agent/agent.py');

  it('shows the Python example whole in the runner guide', () => {
    const guide = readFileSync(path.resolve(__dirname, '../../../docs/guides/runner.md'), 'utf8');
    const blocks = [...guide.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(readFileSync(example, 'utf8'));
  });

  it('runs the documented Python example as it is', async () => {
    const arena = await fakeArena();
    const running = startLoop(arena, { command: { command: 'python3', args: [example] }, keepRunning: true });
    arena.queue({ prompt: 'What is 2+2?', category: 'math' });
    await until(() => arena.results.length === 1, 'the result');
    expect(arena.results[0]!.body).toEqual({
      response: 'You asked (math): What is 2+2?',
      latency_ms: expect.any(Number),
    });
    running.stop.abort();
    await running.done;
  });
});
