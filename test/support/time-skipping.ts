/**
 * Temporal's time-skipping test server, for workflow tests in virtual time: a timer of an hour
 * fires as soon as the workflow has nothing else to wait for. It is the Java build from Maven
 * Central (`io.temporal:temporal-test-server`), fetched once with Maven into the tests' tool directory and
 * started by a small launcher that the SDK's test environment runs as its server (`existing-path`),
 * since the SDK's own download of the native build comes from a host this machine cannot reach.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ARENA_SEARCH_ATTRIBUTES } from '../../infra/embedded/temporal-server';
import { installInto } from '../../infra/embedded/tool-install';
import { runCommand } from '../../infra/embedded/processes';
import { quietWorkerLogs } from './quiet-runtime';
import { testToolDir } from './tool-dir';

const VERSION = '1.31.0';

const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>agent-arena</groupId>
  <artifactId>time-skipping-server</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>${VERSION}</version>
    </dependency>
  </dependencies>
</project>
`;

/** The server's port is its one argument, as for the native build. */
const LAUNCHER_SCRIPT = `#!/bin/sh
exec java -Xss1m -cp "$(dirname "$0")/lib/*" io.temporal.testserver.TestServer "$@"
`;

/** The launcher's path, after fetching the server's jars with Maven the first time. */
export async function findOrInstallTimeSkippingServer(): Promise<string> {
  const dir = path.join(testToolDir(), `temporal-test-server-${VERSION}`);
  const launcher = path.join(dir, 'test-server');
  const there = await fs.stat(launcher).then(
    () => true,
    () => false,
  );
  if (there) return launcher;
  await fs.mkdir(path.dirname(dir), { recursive: true });
  await installInto(dir, async (staging) => {
    await fs.mkdir(staging, { recursive: true });
    await fs.writeFile(path.join(staging, 'pom.xml'), POM);
    await runCommand('mvn', [
      '-q',
      '-B',
      '-f',
      path.join(staging, 'pom.xml'),
      'dependency:copy-dependencies',
      `-DoutputDirectory=${path.join(staging, 'lib')}`,
    ]);
    await fs.writeFile(path.join(staging, 'test-server'), LAUNCHER_SCRIPT, { mode: 0o755 });
  });
  return launcher;
}

/** A time-skipping environment on the Java test server; tear it down in afterAll. */
export async function timeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  quietWorkerLogs();
  const launcher = await findOrInstallTimeSkippingServer();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: launcher } },
  });
  // The workflows set the arena's search attributes, which the server refuses until they are known.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(ARENA_SEARCH_ATTRIBUTES).map(([name, t]) => [name, t.indexedValueType]),
    ),
  });
  return env;
}

/**
 * The arena's workflow code for a test worker: the bundle the run's global set-up made, when the
 * unit tests run with the integration tests (`npm test`); bundled here when they run alone (the
 * unit project has no global set-up), which takes seconds of CPU.
 */
export async function arenaWorkflowBundle(): Promise<{ codePath: string } | WorkflowBundleWithSourceMap> {
  const made = process.env.TEST_WORKFLOW_BUNDLE;
  if (made) return { codePath: made };
  return bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: new DefaultLogger('WARN'),
  });
}
