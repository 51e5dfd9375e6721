/**
 * `arena backup` and `arena restore`: the arena's database to a pg_dump archive and back. The
 * archive holds no key material (secrets are kept hashed or sealed), and none of Temporal's state.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { Config } from '../infra/config';
import { endWorkInterruptedByRestore, type InterruptedWork } from '../infra/db/repositories/restore.repository';
import { findOrInstallPostgresTools, type PostgresTools } from '../infra/embedded/postgres-tools';
import { lastLine, runCommand } from '../infra/embedded/processes';
import { openSecret } from '../domain/credentials';
import { CommandError, type Print } from './command';
import { withDatabaseServer, withOrm, type DatabaseServer } from './database';

/** What the feed and the owner see on a delivery that was in flight when the backup was made. */
export const INTERRUPTED_BY_RESTORE = 'interrupted by a restore from backup; redeliver it to try again';

/** Every archive pg_dump writes in its custom format starts with these bytes. */
const ARCHIVE_MAGIC = 'PGDMP';

/** Writes a pg_dump archive of the arena's database to `file`, which must not exist yet. */
export async function backupCommand(config: Config, file: string, print: Print): Promise<void> {
  const target = path.resolve(file);
  await refuseExisting(target);
  await withDatabaseServer(config, { mayInitialise: false, log: print }, async (server) => {
    const tools = await toolsFor(config, server, print);
    // Written beside the target and linked into place at the end: a failed or interrupted dump
    // leaves no file that looks like a backup, and a file made meanwhile is still not overwritten.
    const partial = `${target}.partial-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
    try {
      await (await fs.open(partial, 'wx', 0o600)).close();
    } catch (err) {
      throw new CommandError(`cannot write ${target}: ${(err as Error).message}`);
    }
    try {
      // One snapshot for every table: pg_dump reads them all in one repeatable-read transaction.
      await runPg(tools.pgDump, ['--format=custom', '--no-owner', '--no-privileges', `--file=${partial}`], server.url);
      await fs.link(partial, target).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return refuseExisting(target);
        throw err;
      });
    } catch (err) {
      if (err instanceof CommandError) throw err;
      throw new CommandError(`backing up ${server.where} failed: ${lastLine(err)}`);
    } finally {
      await fs.rm(partial, { force: true });
    }
    const { size } = await fs.stat(target);
    print(`backed up ${server.where} to ${target} (${formatSize(size)})`);
  });
  print(`keep the encryption key with it (${keyLocation(config)}): the backup holds none, and agents' secrets need it`);
}

export interface RestoreOptions {
  force?: boolean;
}

/** Restores a backup into an empty database (any database with --force), then ends the work that was in flight. */
export async function restoreCommand(config: Config, file: string, opts: RestoreOptions, print: Print): Promise<void> {
  const source = path.resolve(file);
  await checkArchive(source);
  let embedded = false;
  await withDatabaseServer(
    config,
    {
      mayInitialise: true,
      refuseRunning: `the arena's PostgreSQL is running on ${config.dataDir}: stop the arena before restoring into it`,
      log: print,
    },
    async (server) => {
      embedded = server.embedded;
      const tables = await tableCount(server.url);
      if (tables > 0 && !opts.force)
        throw new CommandError(
          `${server.where} is not empty (${tables} tables): restore into an empty one, or add --force to replace what it holds`,
        );
      const tools = await toolsFor(config, server, print);
      await restoreArchive(tools, server, source, tables > 0);
      print(`restored ${source} into ${server.where}`);
      const ended = await withOrm(server.url, (orm) =>
        orm.em.fork().transactional((tx) => endWorkInterruptedByRestore(tx, INTERRUPTED_BY_RESTORE)),
      );
      for (const line of describeInterrupted(ended)) print(line);
      print(await checkKey(config, server.url));
    },
  );
  if (embedded && !config.temporalAddress) {
    // Temporal's state belongs to the database that was there before; its workflow ids, made from
    // row ids, would clash with the restored rows' (a vote's id is never reused).
    const temporalDir = path.join(config.dataDir, 'temporal');
    if (await exists(temporalDir)) {
      await fs.rm(temporalDir, { recursive: true, force: true });
      print(`removed the embedded Temporal's state (${temporalDir}): it described the database that was replaced`);
    }
  } else if (config.temporalAddress) {
    print(
      `Temporal at ${config.temporalAddress} still holds the workflows of what was there before: start the arena on a new TEMPORAL_NAMESPACE`,
    );
  }
}

/**
 * pg_restore writes the archive out as SQL first, and psql runs it in one transaction: a damaged
 * archive fails before anything is touched, and a failing statement rolls back --force's drop too.
 */
async function restoreArchive(tools: PostgresTools, server: DatabaseServer, source: string, replace: boolean) {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-restore-'));
  try {
    const sql = path.join(scratch, 'restore.sql');
    try {
      await runPg(tools.pgRestore, ['--no-owner', '--no-privileges', '--exit-on-error', `--file=${sql}`, source]);
    } catch (err) {
      throw new CommandError(`${source} cannot be read as a backup (${lastLine(err)}); nothing was changed`);
    }
    const drop = replace ? ['--command=drop schema public cascade; create schema public;'] : [];
    try {
      await runPg(
        tools.psql,
        ['--no-psqlrc', '--quiet', '--single-transaction', '--set=ON_ERROR_STOP=1', ...drop, `--file=${sql}`],
        server.url,
      );
    } catch (err) {
      throw new CommandError(`restoring ${source} failed (${lastLine(err)}); ${server.where} was left as it was`);
    }
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** A missing, unreadable or foreign file is refused before any server is started or touched. */
async function checkArchive(source: string): Promise<void> {
  let head: Buffer;
  try {
    const handle = await fs.open(source, 'r');
    try {
      head = Buffer.alloc(ARCHIVE_MAGIC.length);
      await handle.read(head, 0, head.length, 0);
    } finally {
      await handle.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CommandError(code === 'ENOENT' ? `there is no backup at ${source}` : `cannot read ${source}: ${code}`);
  }
  if (head.toString('latin1') !== ARCHIVE_MAGIC)
    throw new CommandError(
      `${source} is not a backup made by arena backup (not a pg_dump archive); nothing was changed`,
    );
}

async function refuseExisting(target: string): Promise<void> {
  if (await exists(target))
    throw new CommandError(`${target} already exists, and a backup never overwrites a file: choose another name`);
}

/** The tools of the server's own major version: pg_dump refuses a newer server, and pg_restore's SQL fits its version. */
async function toolsFor(config: Config, server: DatabaseServer, print: Print): Promise<PostgresTools> {
  const versionNum = await withClient(server.url, async (c) => {
    const { rows } = await c.query<{ v: string }>(`select current_setting('server_version_num') as v`);
    return Number(rows[0]!.v);
  });
  try {
    return await findOrInstallPostgresTools({
      major: Math.floor(versionNum / 10_000),
      toolDir: path.join(config.dataDir, 'tools'),
      log: print,
    });
  } catch (err) {
    throw new CommandError((err as Error).message);
  }
}

/** Runs a PostgreSQL tool against `url`, the password in the environment rather than on the command line. */
async function runPg(tool: string, args: string[], url?: string): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  const connection: string[] = [];
  if (url) {
    const parsed = new URL(url);
    env.PGPASSWORD = decodeURIComponent(parsed.password);
    parsed.password = '';
    connection.push(`--dbname=${parsed.toString()}`);
  }
  await runCommand(tool, [...args, ...connection], { env });
}

async function tableCount(url: string): Promise<number> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ n: number }>(
      `select count(*)::int as n from pg_tables where schemaname = 'public'`,
    );
    return rows[0]!.n;
  });
}

/** Whether the key the arena will start with opens the restored agents' secrets. */
async function checkKey(config: Config, url: string): Promise<string> {
  const file = path.join(config.dataDir, 'encryption.key');
  const key =
    config.encryptionKey ??
    (await fs.readFile(file, 'utf8').then(
      (hex) => Buffer.from(hex.trim(), 'hex'),
      () => undefined,
    ));
  if (!key)
    return `now put back the encryption key that was in use when the backup was made, as ${file} or ARENA_ENCRYPTION_KEY, before the arena starts: a new one cannot open the agents' secrets`;
  const sealed = await withClient(url, async (c) => {
    const { rows } = await c.query<{ s: string }>(`select secret_sealed as s from agents order by id limit 1`);
    return rows[0]?.s;
  });
  if (sealed === undefined) return `${keyLocation(config)} will be used; there are no agents' secrets to check it on`;
  try {
    openSecret(sealed, key);
    return `the encryption key (${keyLocation(config)}) opens the agents' secrets`;
  } catch {
    return `warning: the encryption key (${keyLocation(config)}) does not open the agents' secrets: put back the key that was in use when the backup was made`;
  }
}

function describeInterrupted(ended: InterruptedWork): string[] {
  const lines: string[] = [];
  if (ended.sessions.length > 0) {
    lines.push(
      `ended ${ended.sessions.length} deliver${ended.sessions.length === 1 ? 'y' : 'ies'} that were in flight at backup time as errors; ` +
        `arena redeliver <session-id> sends one again: ${ended.sessions.map((s) => `${s.kind}-${s.id}`).join(' ')}`,
    );
  }
  if (ended.battles > 0) lines.push(`ended ${ended.battles} running live battle(s)`);
  if (ended.benchmarkRuns > 0)
    lines.push(`finished ${ended.benchmarkRuns} benchmark run(s) with the sessions they had`);
  if (ended.unfinishedGyms.length > 0)
    lines.push(
      `the gym of agent(s) ${ended.unfinishedGyms.join(', ')} had not finished: their owners restart it (POST /api/agents/<id>/gym/restart)`,
    );
  return lines;
}

function keyLocation(config: Config): string {
  return config.encryptionKey ? 'ARENA_ENCRYPTION_KEY' : path.join(config.dataDir, 'encryption.key');
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new CommandError(`cannot reach the database: ${(err as Error).message}`);
  }
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

function formatSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
