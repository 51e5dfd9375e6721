/**
 * What an agent sends can never become the arena's fault: steps of arbitrary text and bytes through
 * the API on the real sandbox (commands, arguments, stdin, outputs of any bytes and sizes, file names
 * and contents), each answered 2xx or a 4xx with a sentence, never a 5xx; what is stored is what is
 * shown, escaped where the database cannot hold it; and the session stays whole: it still runs a
 * command, its feed still reads, and its submit is scored, never ended as the arena's failure.
 *
 * The runs are seeded (ARENA_FUZZ_SEED, ARENA_FUZZ_RUNS to explore further); a failure prints the
 * seed and the shrunk steps that reproduce it. `npm test` runs 20 (test/sandbox/step-fuzz.test.ts),
 * the slow set 200 (test/slow/step-fuzz.test.ts).
 */
import fc from 'fast-check';
import { MAX_STDIN_BYTES } from '../../api/schemas/coding';
import { MAX_WRITE_BYTES } from '../../api/routes/coding';
import { storableText } from '../../domain/stored-text';
import type { TestApp } from '../support/test-app';
import {
  feedEntryOf,
  openCodingSession,
  startCodingArena,
  stepOf,
  type CodingArena,
  type CodingWork,
} from './coding-support';

/** The suite, with `runs` sequences of arbitrary steps. */
export function stepFuzzSuite({ runs }: { runs: number }): void {
  const SEED = Number(process.env.ARENA_FUZZ_SEED ?? 20261127);
  const RUNS = Number(process.env.ARENA_FUZZ_RUNS ?? runs);
  /** Output past this is cut (execResult's `truncated`). */
  const OUTPUT_CAP = 64 * 1024;

  let arena: CodingArena;
  let t: TestApp;
  let work: CodingWork;
  let step: ReturnType<typeof stepOf>;

  beforeAll(async () => {
    arena = await startCodingArena(
      {
        ARENA_GYM_RETRY_SECONDS: '1',
        ARENA_SANDBOX_RATE_LIMIT: '10000',
        ARENA_CODING_MAX_STEPS: '10000',
        ARENA_CODING_STEPS_PER_ACCOUNT: '10000',
      },
      'fuzzed',
    );
    t = arena.t;
    work = await openCodingSession(t, arena.owner, arena.agent, 'python/leap-year');
    step = stepOf(t, work.sandbox);
  }, 120_000);
  afterAll(() => arena?.close());

  /** Characters the database, JSON, terminals or file systems treat specially, mixed into arbitrary text. */
  const AWKWARD = [
    '\u0000',
    '\ud800',
    '\udfff',
    '\udc00\ud800',
    '\x1b[31m',
    '\r',
    '\n',
    '\t',
    '\u202e',
    '\ufeff',
    '\uffff',
    '\\',
    '"',
    "'",
    '%',
    '/',
    '..',
    '*',
    '$(id)',
    '\u00e9',
    '\ud83d\ude00',
  ];

  const agentText = (maxParts = 8) =>
    fc
      .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 24 }), fc.constantFrom(...AWKWARD)), {
        maxLength: maxParts,
      })
      .map((parts) => parts.join(''));

  /** How a string reads back once sent as UTF-8 (a lone surrogate becomes U+FFFD) and shown as stored. */
  const shown = (text: string) => storableText(Buffer.from(text, 'utf8').toString('utf8'));

  /** A query's value percent-encoded byte by byte (encodeURIComponent refuses a lone surrogate). */
  const encoded = (bytes: Uint8Array | string) =>
    [...(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes)]
      .map((b) => `%${b.toString(16).padStart(2, '0')}`)
      .join('');

  /** printf's argument writing exactly these bytes. */
  const printfBytes = (bytes: Uint8Array) => [...bytes].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');

  type FuzzStep =
    | { kind: 'shell'; command: string }
    | { kind: 'argv'; argv: string[] }
    | { kind: 'stdin'; stdin: string }
    | { kind: 'bytes'; bytes: Uint8Array; stream: 'stdout' | 'stderr' }
    | { kind: 'flood'; bytes: number }
    | { kind: 'timeout'; value: unknown }
    | { kind: 'write'; path: string; content: string; as: 'json' | 'text' | 'octets' }
    | { kind: 'read'; path: string | Uint8Array };

  const fuzzStep: fc.Arbitrary<FuzzStep> = fc.oneof(
    agentText().map((command) => ({ kind: 'shell' as const, command })),
    fc.array(agentText(4), { minLength: 1, maxLength: 4 }).map((args) => ({ kind: 'argv' as const, argv: args })),
    agentText(16).map((stdin) => ({ kind: 'stdin' as const, stdin })),
    fc.record({
      kind: fc.constant('bytes' as const),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }),
      stream: fc.constantFrom('stdout' as const, 'stderr' as const),
    }),
    fc
      .oneof(fc.constantFrom(OUTPUT_CAP - 1, OUTPUT_CAP, OUTPUT_CAP + 1), fc.integer({ min: 0, max: 4 * OUTPUT_CAP }))
      .map((bytes) => ({ kind: 'flood' as const, bytes })),
    fc
      .oneof(fc.integer(), fc.double(), fc.string({ maxLength: 4 }), fc.constant(null), fc.boolean())
      .map((value) => ({ kind: 'timeout' as const, value })),
    fc.record({
      kind: fc.constant('write' as const),
      path: fc.oneof(
        agentText(3),
        agentText(3).map((name) => `src/${name}`),
      ),
      content: agentText(32),
      as: fc.constantFrom('json' as const, 'text' as const, 'octets' as const),
    }),
    fc
      .oneof(agentText(3), fc.uint8Array({ minLength: 1, maxLength: 12 }))
      .map((path) => ({ kind: 'read' as const, path })),
  );

  /** Every answer: a 2xx, or a 4xx whose `detail` is a sentence; never a 5xx. */
  function expectAnswered(res: { statusCode: number; body: string }, what: string): void {
    if (res.statusCode >= 500 || res.statusCode < 200)
      throw new Error(`${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (res.statusCode >= 400) {
      const detail = (JSON.parse(res.body) as { detail?: unknown }).detail;
      if (typeof detail !== 'string' || detail.length === 0)
        throw new Error(`${what}: ${res.statusCode} without a detail`);
    }
  }

  /** What the arena shows never holds what it could not have stored. */
  function expectStorable(text: string, what: string): void {
    expect([what, storableText(text) === text]).toEqual([what, true]);
  }

  const exec = (body: Record<string, unknown>) => step('POST', 'exec', { timeout_seconds: 5, ...body });

  async function take(s: FuzzStep): Promise<void> {
    const what = JSON.stringify(s, (_k, v: unknown) => (v instanceof Uint8Array ? [...v] : v)).slice(0, 300);
    switch (s.kind) {
      case 'shell': {
        const res = await exec({ command: s.command });
        expectAnswered(res, what);
        if (res.statusCode === 200) {
          expectStorable(res.json().stdout, what);
          expectStorable(res.json().stderr, what);
        }
        return;
      }
      case 'argv': {
        // printf %s prints its arguments as given: what comes back is what was sent, as shown.
        const res = await exec({ command: ['printf', '%s', ...s.argv] });
        expectAnswered(res, what);
        if (res.statusCode === 200) expect(res.json().stdout).toBe(shown(s.argv.join('')));
        else expect(s.argv.some((arg) => arg.includes('\u0000'))).toBe(true);
        return;
      }
      case 'stdin': {
        const res = await exec({ command: ['cat'], stdin: s.stdin });
        expectAnswered(res, what);
        // A NUL is refused in any text of a request's JSON, with a sentence saying so.
        expect([what, res.statusCode]).toEqual([what, s.stdin.includes('\u0000') ? 400 : 200]);
        if (res.statusCode === 200) expect(res.json().stdout).toBe(shown(s.stdin));
        return;
      }
      case 'bytes': {
        const redirect = s.stream === 'stderr' ? ' >&2' : '';
        const res = await exec({ command: `printf '${printfBytes(s.bytes)}'${redirect}` });
        expectAnswered(res, what);
        expect(res.statusCode).toBe(200);
        // Invalid UTF-8 reads as U+FFFD, NUL as \0: the bytes' text, as stored.
        expect(res.json()[s.stream]).toBe(storableText(Buffer.from(s.bytes).toString('utf8')));
        return;
      }
      case 'flood': {
        const res = await exec({ command: `head -c ${s.bytes} /dev/zero | tr '\\0' 'x'` });
        expectAnswered(res, what);
        expect(res.statusCode).toBe(200);
        expect(res.json().stdout.length).toBe(Math.min(s.bytes, OUTPUT_CAP));
        expect(res.json().truncated).toBe(s.bytes > OUTPUT_CAP);
        return;
      }
      case 'timeout': {
        const res = await step('POST', 'exec', { command: 'true', timeout_seconds: s.value });
        expectAnswered(res, what);
        const valid = Number.isInteger(s.value) && (s.value as number) >= 1 && (s.value as number) <= 120;
        expect([what, res.statusCode]).toEqual([what, valid ? 200 : 400]);
        return;
      }
      case 'write': {
        const query = `files?path=${encoded(s.path)}`;
        const res =
          s.as === 'json'
            ? await step('PUT', query, { content: s.content })
            : await step('PUT', query, s.as === 'text' ? s.content : Buffer.from(s.content, 'utf8'), {
                'content-type': s.as === 'text' ? 'text/plain; charset=utf-8' : 'application/octet-stream',
              });
        expectAnswered(res, what);
        if (res.statusCode !== 204) return;
        const back = await step('GET', query);
        expectAnswered(back, `${what} (read back)`);
        expect([what, back.statusCode]).toEqual([what, 200]);
        expect(back.body).toBe(shown(s.content));
        return;
      }
      case 'read': {
        // A name as text, or any bytes (invalid UTF-8 among them).
        const res = await step('GET', `files?path=${encoded(s.path)}`);
        expectAnswered(res, what);
        return;
      }
    }
  }

  /** The session is whole: it runs a command, and its feed entry reads. */
  async function expectSessionWhole(): Promise<void> {
    const alive = await exec({ command: 'echo alive' });
    expect([alive.statusCode, alive.json().stdout]).toEqual([200, 'alive\n']);
    const feed = await t.app.inject({ method: 'GET', url: `/api/agents/${arena.agent.id}/activity?limit=5` });
    expect(feed.statusCode).toBe(200);
  }

  it('answers arbitrary steps with a 2xx or a 4xx sentence, shows what it stored, and the session stays whole', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fuzzStep, { minLength: 1, maxLength: 6 }), async (steps) => {
        for (const s of steps) await take(s);
        await expectSessionWhole();
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: false },
    );
  }, 600_000);

  it.each([
    ['a command of 100,000 characters', { command: `: ${'x'.repeat(100_000 - 2)}` }, 200],
    ['a command of 100,001 characters', { command: `: ${'x'.repeat(100_000 - 1)}` }, 400],
    ['an argument of 100,000 characters', { command: ['true', 'y'.repeat(100_000)] }, 200],
    ['an argument of 100,001 characters', { command: ['true', 'y'.repeat(100_001)] }, 400],
    ['1,000 arguments', { command: ['true', ...Array.from({ length: 999 }, () => 'a')] }, 200],
    ['1,001 arguments', { command: ['true', ...Array.from({ length: 1000 }, () => 'a')] }, 400],
    ['stdin at its limit', { command: ['wc', '-c'], stdin: 's'.repeat(MAX_STDIN_BYTES) }, 200],
    ['stdin past its limit', { command: ['wc', '-c'], stdin: 's'.repeat(MAX_STDIN_BYTES + 1) }, 400],
    ['a NUL in an argument', { command: ['printf', 'a\u0000b'] }, 400],
    ['an empty program', { command: [''] }, 400],
    ['no command', {}, 400],
  ])('%s', async (_name, body, status) => {
    const res = await step('POST', 'exec', { timeout_seconds: 10, ...body });
    expectAnswered(res, _name);
    expect(res.statusCode).toBe(status);
  });

  it.each([
    ['a file at the write limit', 'big.txt', 'b'.repeat(MAX_WRITE_BYTES), 204],
    ['a file past the write limit', 'big.txt', 'b'.repeat(MAX_WRITE_BYTES + 1), 400],
    ['a name of 255 bytes', 'n'.repeat(255), 'x', 204],
    ['a name of 256 bytes', 'n'.repeat(256), 'x', 400],
    ['a path of 1,024 characters', `${'d'.repeat(200)}/`.repeat(5) + 'f'.repeat(19), 'x', 204],
    ['a path of 1,025 characters', `${'d'.repeat(200)}/`.repeat(5) + 'f'.repeat(20), 'x', 400],
    ['a name with a NUL', 'a\u0000b', 'x', 400],
    ['a name with a newline', 'a\nb', 'x', 400],
    ['a name that climbs out', '../outside', 'x', 400],
    ['an absolute path', '/etc/passwd', 'x', 400],
    ['a name of emoji and right-to-left marks', '\ud83d\ude00\u202e.py', 'x', 204],
    ['the hidden tests folder', '.hidden-tests/test_x.py', 'x', 204],
  ])('%s', async (name, path, content, status) => {
    const query = `files?path=${encoded(path)}`;
    const res = await step('PUT', query, { content });
    expectAnswered(res, name);
    expect(res.statusCode).toBe(status);
    if (status === 204) expect((await step('GET', query)).body).toBe(shown(content));
  });

  it('scores the fuzzed session as any other: never the arena’s failure', async () => {
    await expectSessionWhole();
    const res = await step('POST', 'submit');
    expect(res.statusCode).toBe(200);
    expect(['passed', 'failed']).toContain(res.json().status);
    const entry = await feedEntryOf(t, arena.agent.id, work.work_id);
    expect(entry.status).toBe(res.json().status);
    // The transcript the feed shows holds every step as stored: nothing the database could not hold.
    expect(typeof entry.response).toBe('string');
    expectStorable(entry.response as string, 'the transcript');
    const [row] = await t.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ arena_fault: boolean }>>(`select arena_fault from coding_sessions where session_id = ?`, [
        Number(work.work_id.split('-')[1]),
      ]);
    expect(row!.arena_fault).toBe(false);
  }, 120_000);
}
