/** What the CLI tests share: a database of their own, a scratch folder, and the `arena` command with what it printed. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { main } from '../../cli/main';
import { createTestDatabase, type TestDatabase } from '../support/test-db';

export interface CliFixture {
  db: TestDatabase;
  pg: Client;
  /** A scratch folder, removed after the file's tests. */
  dir: string;
  /** Lines the command printed, and what it wrote to stderr, since the test began. */
  printed: string[];
  errors: string[];
  /** `arena <argv>` against the test database; resolves with its exit code. */
  arena(...argv: string[]): Promise<number>;
}

export function useCliDatabase(scratchPrefix: string): CliFixture {
  let errorSpy: jest.SpyInstance;
  const cli: CliFixture = {
    db: undefined as unknown as TestDatabase,
    pg: undefined as unknown as Client,
    dir: '',
    printed: [],
    errors: [],
    arena: (...argv) => main(argv, (line) => cli.printed.push(line), { DATABASE_URL: cli.db.url }),
  };
  beforeAll(async () => {
    // Made here, not when the file is collected: a file of parts (test/support/parts.ts) collects
    // every part before running any, and each part restores its own spy when it ends.
    errorSpy = jest.spyOn(console, 'error');
    cli.db = await createTestDatabase();
    cli.pg = new Client({ connectionString: cli.db.url });
    await cli.pg.connect();
    cli.dir = fs.mkdtempSync(path.join(os.tmpdir(), scratchPrefix));
  });
  afterAll(async () => {
    errorSpy.mockRestore();
    await cli.pg.end();
    await cli.db.drop();
    fs.rmSync(cli.dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    cli.printed.length = 0;
    cli.errors.length = 0;
    errorSpy.mockImplementation((...args: unknown[]) => void cli.errors.push(args.join(' ')));
  });
  return cli;
}
