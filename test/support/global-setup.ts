/** Jest global set-up of the integration tests: one embedded PostgreSQL with a migrated template database, one Temporal dev server, one workflow bundle and bubblewrap per run, and Chromium installed beside the tests. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../infra/embedded/postgres';
import { findOrInstallTemporalCli } from '../../infra/embedded/temporal-cli';
import { startTemporalDevServer } from '../../infra/embedded/temporal-server';
import { freePort } from '../../infra/ports';
import { findOrInstallBubblewrap } from '../../infra/embedded/bubblewrap';
import { CHROMIUM_MARKER_VARIABLE, findOrInstallChromium } from './chromium';
import globalTeardown from './global-teardown';
import { createTemplateDatabase } from './test-db';
import { installA2aPythonInBackground } from './a2a-python';
import { installSchemathesisInBackground } from './schemathesis';
import { installInBackground } from './background-install';
import { testToolDir } from './tool-dir';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const quietLogger = new DefaultLogger('WARN');

/** What global-teardown.ts needs; global setup and teardown share one process and one globalThis. */
export interface TestStack {
  tempDir: string;
  stops: Array<() => Promise<void>>;
  /** Work that goes on beside the tests (tool installs), awaited before the folder is removed. */
  background: Array<Promise<void>>;
}

declare global {
  var __arenaTestStack: TestStack | undefined;
}

const REPO = path.resolve(__dirname, '..', '..');

/**
 * The run's PostgreSQL keeps nothing past the run, so it need not survive a crash of the machine:
 * no flush to disk at each commit, and no full page images in the write-ahead log.
 */
const TEST_POSTGRES_SETTINGS = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-test-'));
  const stack: TestStack = { tempDir, stops: [], background: [] };
  globalThis.__arenaTestStack = stack;
  // Scratch space the test files of this run share (test/support/build.ts keeps its lock there).
  process.env.TEST_RUN_DIR = tempDir;
  // Kept quiet unless a server fails, when its last lines are in the error.
  const verbose = process.env.ARENA_TEST_VERBOSE === '1';
  const log = (prefix: string) => (verbose ? (line: string) => console.log(`[${prefix}] ${line}`) : undefined);

  const cliPath = findOrInstallTemporalCli({
    explicitPath: process.env.TEMPORAL_CLI_PATH || undefined,
    toolDir: testToolDir(),
    log: (line) => console.log(`[temporal-cli] ${line}`),
  });
  // Only the fuzz tests need Schemathesis: its install (half a minute of pip on a fresh clone) runs
  // beside the tests instead of inside a test's time.
  stack.background.push(installSchemathesisInBackground(path.join(tempDir, 'schemathesis-installed')));
  // Likewise the Python A2A SDK, for the test of the Python example agent.
  stack.background.push(installA2aPythonInBackground(path.join(tempDir, 'a2a-python-installed')));
  const [pgPort, temporalPort] = [await freePort(), await freePort()];
  const bundling = bundleWorkflowCode({ workflowsPath: path.join(REPO, 'workflows'), logger: quietLogger }).then(
    async ({ code }) => {
      const file = path.join(tempDir, 'workflow-bundle.js');
      await fs.writeFile(file, code);
      process.env.TEST_WORKFLOW_BUNDLE = file;
    },
  );
  const postgres = startEmbeddedPostgres({
    dataDir: tempDir,
    port: pgPort,
    settings: TEST_POSTGRES_SETTINGS,
    log: log('postgres'),
  }).then((pg) => {
    stack.stops.push(pg.stop);
    process.env.TEST_PG_ADMIN_URL = pg.adminUrl;
  });
  // Every test file's database is a copy of it (test/support/test-db.ts).
  const template = postgres.then(createTemplateDatabase);
  // Coding sandbox sessions run their commands under it; without it they end as `error`, which says why.
  // Asked for before Chromium, so that apt (one install at a time) brings it first.
  const bubblewrap = findOrInstallBubblewrap({ log: (line) => console.log(`[bubblewrap] ${line}`) }).then(
    () => undefined,
    (err: unknown) => {
      process.env.TEST_BUBBLEWRAP_ERROR = err instanceof Error ? err.message : String(err);
    },
  );
  // Only the browser tests need it, so a machine without it still runs the others, and the tests do
  // not wait for its install (about 20 s of apt on a fresh machine): test/web/browser.ts waits for
  // it, and reports why there is none when a browser test starts.
  stack.background.push(
    installInBackground(CHROMIUM_MARKER_VARIABLE, path.join(tempDir, 'chromium-installed'), () =>
      findOrInstallChromium({
        explicitPath: process.env.CHROMIUM_PATH || undefined,
        log: (line) => console.log(`[chromium] ${line}`),
      }),
    ),
  );
  const results = await Promise.allSettled([
    bubblewrap,
    bundling,
    postgres,
    template,
    // Temporal binds several ports of its own choosing as it starts: only once PostgreSQL holds its
    // port can none of them be that one.
    Promise.all([cliPath, postgres.catch(() => undefined)]).then(async ([cli]) => {
      const temporal = await startTemporalDevServer({
        cliPath: cli,
        dataDir: tempDir,
        port: temporalPort,
        namespace: 'default',
        log: log('temporal'),
      });
      stack.stops.push(temporal.stop);
      process.env.TEST_TEMPORAL_ADDRESS = temporal.address;
      process.env.TEST_TEMPORAL_CLI_PATH = cli;
    }),
  ]);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    // Jest skips the teardown when the setup throws, so clean up here.
    await globalTeardown();
    throw failure.reason;
  }
  if (verbose) console.log(`[global-setup] test stack up in ${Date.now() - started} ms`);
}
