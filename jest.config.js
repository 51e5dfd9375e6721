/**
 * Jest: TypeScript through SWC, in three projects by folder. `unit` (test/unit/) starts no stack;
 * `integration` (the rest of test/ but test/slow/) gets one embedded PostgreSQL, one Temporal dev
 * server and Chromium per run from its global set-up; `slow` (test/slow/) gets the same set-up and
 * holds the long load and fault tests, which `npm test` does not run (`npm run test:slow` does).
 */

/**
 * Which project a test belongs to is its folder: everything under test/unit/ needs no PostgreSQL,
 * no Temporal dev server, no app with a database behind it and no browser (it may start a
 * loopback HTTP server, a sandboxed process or the time-skipping test server it uses itself);
 * everything under test/slow/ is a long load or fault test run before an issue touching deliveries,
 * durability, the sandbox or ratings is resolved, each with a small counterpart in `npm test`;
 * everything else is an integration test.
 */

const shared = {
  // Node's, disabling each file's AsyncLocalStorage instances when the file ends (see the file).
  testEnvironment: '<rootDir>/test/support/environment.js',
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
    // jose (under the A2A SDK) ships ES modules only. Node loads them from CommonJS itself; Jest's
    // module system cannot, so they are compiled to CommonJS like the tests.
    '/node_modules/jose/.+\\.js$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
};

module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/unit/', '<rootDir>/test/slow/'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...shared,
      displayName: 'slow',
      testMatch: ['<rootDir>/test/slow/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  // Longest first, counting a file of parts (test/support/parts.ts) by its parts.
  testSequencer: '<rootDir>/test/support/sequencer.js',
  testTimeout: 30000,
  // One more than the cores: the test files wait on the Temporal server, PostgreSQL, Chromium and
  // sandboxed children about half their time, and with two workers the machine sat a fifth idle. On two
  // cores a warm `npm test` took 568 s with two workers, 494 s with three, 488 s with four.
  maxWorkers: require('node:os').availableParallelism() + 1,
  // A worker that has grown past this is replaced between files: run after run, each of two workers held
  // 3-4 GB by the end, and the time went into collecting it.
  workerIdleMemoryLimit: '1GB',
};
