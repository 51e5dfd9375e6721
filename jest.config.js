/**
 * Jest: TypeScript through SWC, in two projects. `unit` starts no servers; `integration` gets one
 * embedded PostgreSQL, one Temporal dev server and Chromium per run from its global set-up.
 */

/**
 * Test files that need no PostgreSQL, Temporal, app or browser (pure rules, rendering, the runner
 * against a fake arena, the webhook client against loopback servers). A new test that needs none
 * belongs here, or in test/unit/.
 */
const UNIT = [
  '**/test/unit/**/*.test.ts',
  '**/test/domain/**/*.test.ts',
  '**/test/ratings/**/*.test.ts',
  '**/test/prompts/**/*.test.ts',
  '**/test/bench/**/*.test.ts',
  '**/test/cli/leaderboard-fit.test.ts',
  // The app itself, built with nothing behind it (test/support/offline-app.ts).
  '**/test/discovery/{docs,openapi,well-known}.test.ts',
  // Validation, routing and body refusals, which come before any handler (test/api/offline/).
  '**/test/api/offline/**/*.test.ts',
  // Replaying saved histories needs only the workflow code, no Temporal server.
  '**/test/replay/**/*.test.ts',
  '**/test/web/render/**/*.test.ts',
  '**/test/web/auth/{config,passwords}.test.ts',
  '**/test/sandbox/task-catalogue.test.ts',
  '**/test/sandbox/{clean-room-files,containment,humaneval-cheats,isolation,sandbox-config,session-processes,spawn-output,workspaces}.test.ts',
  '**/test/runner/{adapter,backoff,cli,command-env,pull,push,replay-guard,sandbox}.test.ts',
  '**/test/webhook/{address-guard,client-failures,client-guard,client-responses,failure,ping,signing}.test.ts',
];

const shared = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/test'],
  // The server imports the runner package by name; tests use its sources, so they need no build.
  moduleNameMapper: {
    '^arena-runner/package\\.json$': '<rootDir>/runner/package.json',
    '^arena-runner/(.*)$': '<rootDir>/runner/src/$1',
  },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
};

module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: UNIT,
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['**/*.test.ts', ...UNIT.map((glob) => `!${glob}`)],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  testTimeout: 30000,
  maxWorkers: 2,
};
