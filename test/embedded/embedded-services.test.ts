/** The embedded PostgreSQL and Temporal dev server: start, persist across restarts, stop without leftovers. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../infra/embedded/postgres';
import {
  ARENA_SEARCH_ATTRIBUTES,
  namespaceRetentionDays,
  startTemporalDevServer,
} from '../../infra/embedded/temporal-server';
import { freePort } from '../../infra/ports';
import { portIsOpen } from '../support/net';

jest.setTimeout(90_000);

let dataDir: string;
beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-embedded-'));
});
afterAll(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function query(url: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

test('PostgreSQL keeps its data, its password and its database across a restart, survives a stale pid file, and takes the settings asked for', async () => {
  const port = await freePort();
  const first = await startEmbeddedPostgres({ dataDir, port });
  try {
    expect(first.url).toMatch(new RegExp(`^postgres://postgres:[0-9a-f]+@127\\.0\\.0\\.1:${port}/arena$`));
    expect(first.adminUrl).toBe(first.url.replace(/\/arena$/, '/postgres'));
    expect(await query(first.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    await query(first.url, "create table survivor (name text); insert into survivor values ('still here')");
  } finally {
    await first.stop();
  }
  expect(await portIsOpen(port)).toBe(false);
  expect((await fs.stat(path.join(dataDir, 'postgres-password'))).mode & 0o777).toBe(0o600);

  // What a run killed with SIGKILL leaves behind, with a pid that is no PostgreSQL.
  await fs.writeFile(path.join(dataDir, 'postgres', 'postmaster.pid'), `${2 ** 22 - 7}\n${dataDir}/postgres\n`);
  const second = await startEmbeddedPostgres({ dataDir, port });
  try {
    expect(second.url).toBe(first.url);
    expect(await query(second.url, 'select name from survivor')).toEqual([{ name: 'still here' }]);
    // Durable by default: only a caller that asks (the test run) gives up flushing at each commit.
    expect(await query(second.url, `select current_setting('fsync') as fsync`)).toEqual([{ fsync: 'on' }]);
  } finally {
    await second.stop();
  }
  expect(await portIsOpen(port)).toBe(false);
  const third = await startEmbeddedPostgres({ dataDir, port, settings: { fsync: 'off', synchronous_commit: 'off' } });
  try {
    expect(
      await query(third.url, `select current_setting('fsync') as f, current_setting('synchronous_commit') as s`),
    ).toEqual([{ f: 'off', s: 'off' }]);
    expect(await query(third.url, 'select name from survivor')).toEqual([{ name: 'still here' }]);
  } finally {
    await third.stop();
  }
});

test('the Temporal dev server serves the namespace with the arena search attributes and the retention asked for, also after a restart', async () => {
  const cliPath = process.env.TEST_TEMPORAL_CLI_PATH;
  if (!cliPath) throw new Error('TEST_TEMPORAL_CLI_PATH is unset: is test/support/global-setup.ts configured?');
  const [port, uiPort] = [await freePort(), await freePort()];

  for (const [run, retentionDays] of [
    ['fresh database', 3],
    ['restart on the same database, with another retention', 5],
  ] as const) {
    const server = await startTemporalDevServer({
      cliPath,
      dataDir,
      port,
      uiPort,
      namespace: 'arena-test',
      retentionDays,
    });
    try {
      expect(server.address).toBe(`127.0.0.1:${port}`);
      expect(server.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
      const connection = await Connection.connect({ address: server.address });
      try {
        const info = await connection.workflowService.getSystemInfo({});
        expect(info.serverVersion).toBeTruthy();
        const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'arena-test' });
        expect(Object.keys(customAttributes ?? {})).toEqual(
          expect.arrayContaining(Object.keys(ARENA_SEARCH_ATTRIBUTES)),
        );
        expect({ run, days: await namespaceRetentionDays(connection, 'arena-test') }).toEqual({
          run,
          days: retentionDays,
        });
      } finally {
        await connection.close();
      }
      expect((await fetch(server.uiUrl!)).status).toBe(200);
    } finally {
      await server.stop();
    }
    expect({ run, grpc: await portIsOpen(port), ui: await portIsOpen(uiPort) }).toEqual({
      run,
      grpc: false,
      ui: false,
    });
  }
});
