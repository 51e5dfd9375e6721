/**
 * Fuzzing: Schemathesis generates requests, valid and invalid, for every operation of the live
 * /openapi.json and runs every check on each answer: never a 5xx; the documented status, content
 * type, headers and schema; valid requests accepted and invalid ones refused; 405 with Allow for
 * undeclared methods; then sequences that follow the document's links, with the conformance
 * checks. It prints how many requests it sent and what it found.
 *
 * The body is shared by two sizes: test/hardening/fuzz.test.ts (in `npm test`) generates a few
 * examples per operation without the coverage phase, test/slow/fuzz.test.ts (the slow set) forty
 * with it.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOrInstallSchemathesis } from '../support/schemathesis';
import { register, startTestApp, type TestApp } from '../support/test-app';

/** Every check, over the phases that generate requests per operation. */
const ALL_CHECKS = ['all'];
/**
 * The stateful phase (sequences that follow the document's links) runs with the conformance
 * checks only: its "valid data is accepted" verdict depends on what the earlier phase left in the
 * database (a generated live battle finds no eligible agent, a vote finds its battle taken), and
 * failed one full run in three while passing on its own.
 */
const STATEFUL_CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
];
/**
 * A board's category is checked against the arena's categories, which change as operators add
 * prompts, so the document cannot list them: a well-formed category the arena does not have is a
 * documented 400 ("category must be one of …"), not a refusal of valid data.
 */
const CONFIG = `
[[operations]]
include-path-regex = "^/api/leaderboard"
checks.positive_data_acceptance.expected-statuses = [200, 400]
`;

/**
 * How much to generate: the phases that generate requests per operation (the coverage phase derives
 * its cases from every schema's bounds whatever the number of examples, and sent most of the 2,034
 * requests of a run of all three phases at four examples per operation), examples per operation,
 * and the fewest requests the per-operation and the stateful phases must each send.
 */
export interface FuzzSize {
  phases: string;
  examplesPerOperation: number;
  minRequests: number;
  minStatefulRequests: number;
}

/** The fuzz tests at one size; call it at the top level of a test file. */
export function fuzzSuite(size: FuzzSize): void {
  let t: TestApp;
  let base: string;
  let auth: string;
  let secret: string;

  beforeAll(async () => {
    // Limits high enough that the fuzzer meets the routes themselves rather than 429s.
    t = await startTestApp({
      ARENA_REGISTER_RATE_LIMIT: '100000',
      ARENA_VOTE_RATE_LIMIT: '100000',
      ARENA_SANDBOX_RATE_LIMIT: '100000',
      ARENA_BATTLE_RATE_LIMIT: '100000',
      ARENA_WORK_POLL_RATE_LIMIT: '100000',
      ARENA_MAX_AGENTS_PER_ACCOUNT: '100000',
      ARENA_PING_RATE_LIMIT: '100000',
      ARENA_GYM_RESTART_RATE_LIMIT: '100000',
      // The fuzzing account is an operator, so the admin routes are exercised too.
      ARENA_ADMIN_USERNAMES: 'fuzz-operator',
    });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const owner = await register(t.app);
    await t.orm.em
      .fork()
      .getConnection()
      .execute(`update users set username = 'fuzz-operator' where id = ?`, [owner.userId]);
    auth = owner.apiKey;
    const puller = (
      await t.app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: owner.auth,
        payload: { name: 'fuzzed', mode: 'pull' },
      })
    ).json();
    secret = puller.webhook_secret;
  }, 60_000);
  afterAll(() => t.close());

  interface Report {
    requests: number;
    operations: number;
    failures: string[];
    output: string;
    code: number | null;
  }

  async function fuzz(checks: string[], phases: string): Promise<Report> {
    const tool = await findOrInstallSchemathesis((line) => console.log(line));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-fuzz-'));
    const ndjson = path.join(dir, 'events.ndjson');
    const config = path.join(dir, 'schemathesis.toml');
    fs.writeFileSync(config, CONFIG);
    const args = [
      ...tool.command.slice(1),
      '--config-file',
      config,
      'run',
      `${base}/openapi.json`,
      '--checks',
      checks.join(','),
      '--phases',
      phases,
      '--mode',
      'all',
      '--max-examples',
      String(size.examplesPerOperation),
      '--seed',
      '20261122',
      // One worker: with two, Hypothesis's lambda descriptions (ast.parse in threads) failed now and then inside CPython 3.11.
      '--workers',
      '1',
      '--request-timeout',
      '70',
      '--suppress-health-check',
      'all',
      '--continue-on-failure',
      '--no-color',
      '--report',
      'ndjson',
      '--report-ndjson-path',
      ndjson,
      '--header',
      `Authorization: Bearer ${auth}`,
      '--header',
      `X-Arena-Secret: ${secret}`,
      '--generation-database',
      'none',
      // Revoking API keys is left to test/api/keys.part.ts: a generated DELETE may hit the fuzzing
      // account's own key, and every request after it would be a 401 that tests nothing.
      '--exclude-path-regex',
      '^/api/keys/\\{id\\}$',
    ];
    // Run from the scratch folder: Schemathesis keeps its own state in the working directory.
    const child = spawn(tool.command[0]!, args, { cwd: dir, env: tool.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const events = fs.existsSync(ndjson)
      ? fs
          .readFileSync(ndjson, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
    fs.rmSync(dir, { recursive: true, force: true });
    let requests = 0;
    const operations = new Set<string>();
    const failures: string[] = [];
    for (const event of events) {
      const scenario = event.ScenarioFinished ?? event.ScenarioFinishedEvent;
      if (!scenario) continue;
      const recorder = scenario.recorder;
      operations.add(recorder?.label ?? scenario.label ?? '?');
      for (const interactions of Object.values(recorder?.interactions ?? {}) as Array<{ response?: unknown }>)
        if (interactions.response) requests++;
      for (const checks of Object.values(recorder?.checks ?? {}) as Array<
        Array<{ name: string; status: string; failure_info?: { failure?: { title?: string } } }>
      >) {
        for (const check of checks)
          if (check.status === 'FAILURE' || check.status === 'failure')
            failures.push(`${recorder.label}: ${check.name} ${check.failure_info?.failure?.title ?? ''}`);
      }
    }
    return { requests, operations: operations.size, failures, output, code };
  }

  it('runs Schemathesis as a library, whose sources Hypothesis does not mine for constants', async () => {
    // Hypothesis parses every module it takes for the code under test (any outside a site-packages
    // folder) for constants to try: over Schemathesis and its libraries, a quarter of a run's CPU.
    const tool = await findOrInstallSchemathesis();
    const local = await new Promise<string>((resolve, reject) =>
      execFile(
        'python3',
        [
          '-c',
          'import schemathesis, hypothesis.internal.constants_ast as c; print(c.is_local_module_file(schemathesis.__file__))',
        ],
        { env: tool.env },
        (err, stdout) => (err ? reject(err) : resolve(stdout.trim())),
      ),
    );
    expect(local).toBe('False');
  });

  it('answers generated requests to every documented operation without a 5xx, as documented', async () => {
    const report = await fuzz(ALL_CHECKS, size.phases);
    console.log(
      `fuzzing: ${report.requests} requests over ${report.operations} operations (valid and invalid), ${report.failures.length} failed checks`,
    );
    // One line per distinct failure: the raw output repeats each, with request bodies up to 1 MiB.
    const distinct = [...new Set(report.failures)].sort();
    // Schemathesis's own output ends with each failure's request (as curl) and the answer.
    if (distinct.length > 0 || report.code !== 0) console.log(distinct.join('\n'), report.output.slice(-8_000));
    expect(distinct).toEqual([]);
    expect(report.code).toBe(0);
    expect(report.operations).toBeGreaterThanOrEqual(30);
    expect(report.requests).toBeGreaterThan(size.minRequests);
  }, 900_000);

  it('answers sequences that follow the links of the document without a 5xx, as documented', async () => {
    const report = await fuzz(STATEFUL_CHECKS, 'stateful');
    console.log(`stateful fuzzing: ${report.requests} requests, ${report.failures.length} failed checks`);
    const distinct = [...new Set(report.failures)].sort();
    // Schemathesis's own output ends with each failure's request (as curl) and the answer.
    if (distinct.length > 0 || report.code !== 0) console.log(distinct.join('\n'), report.output.slice(-8_000));
    expect(distinct).toEqual([]);
    expect(report.code).toBe(0);
    expect(report.requests).toBeGreaterThan(size.minStatefulRequests);
  }, 900_000);
}
