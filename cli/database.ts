/** The database an operator command talks to: DATABASE_URL, or the embedded one `npm start` runs in the data folder. */
import fs from 'node:fs';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { ConfigError, type Config } from '../infra/config';
import { ormConfig } from '../infra/db/orm.config';
import { startEmbeddedPostgres } from '../infra/embedded/postgres';
import { openLogFile } from '../infra/embedded/log-files';
import { CommandError } from './command';

export function operatorDatabaseUrl(config: Config): string {
  if (config.databaseUrl) return config.databaseUrl;
  const passwordFile = path.join(config.dataDir, 'postgres-password');
  if (!fs.existsSync(passwordFile)) {
    throw new ConfigError(
      `DATABASE_URL is not set and there is no embedded database in ${config.dataDir}; start the service with npm start, or set DATABASE_URL`,
    );
  }
  const password = fs.readFileSync(passwordFile, 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${config.pgPort}/arena`;
}

export async function withDatabase<T>(config: Config, work: (orm: MikroORM) => Promise<T>): Promise<T> {
  return withOrm(operatorDatabaseUrl(config), work);
}

export async function withOrm<T>(url: string, work: (orm: MikroORM) => Promise<T>): Promise<T> {
  const orm = await MikroORM.init(ormConfig(url, { pool: { min: 0, max: 2 } }));
  try {
    return await work(orm);
  } finally {
    await orm.close(true);
  }
}

export interface DatabaseServer {
  url: string;
  /** The database in words, for messages: never with its password. */
  where: string;
  /** The embedded one in the data folder (running or started for the command), not DATABASE_URL's. */
  embedded: boolean;
}

export interface DatabaseServerOptions {
  /** Whether a data folder without a cluster gets a new one (a restore), or is an error (a backup). */
  mayInitialise: boolean;
  /** Set when the command must not run beside a running arena: the error then. */
  refuseRunning?: string;
  log: (line: string) => void;
}

/**
 * For commands that work on the whole database (backup, restore): DATABASE_URL's server, the
 * embedded one `npm start` runs, or, when the arena is stopped, the embedded cluster started for
 * the command alone and stopped after it.
 */
export async function withDatabaseServer<T>(
  config: Config,
  opts: DatabaseServerOptions,
  work: (server: DatabaseServer) => Promise<T>,
): Promise<T> {
  if (config.databaseUrl) {
    const url = new URL(config.databaseUrl);
    return work({
      url: config.databaseUrl,
      where: `the database ${url.pathname.slice(1)} on ${url.host}`,
      embedded: false,
    });
  }
  const where = `the embedded database in ${config.dataDir}`;
  const clusterExists = fs.existsSync(path.join(config.dataDir, 'postgres', 'PG_VERSION'));
  if (clusterExists && fs.existsSync(path.join(config.dataDir, 'postgres-password'))) {
    const url = operatorDatabaseUrl(config);
    if (await answers(url)) {
      if (opts.refuseRunning) throw new CommandError(opts.refuseRunning);
      return work({ url, where, embedded: true });
    }
  }
  if (!clusterExists && !opts.mayInitialise)
    throw new CommandError(`there is no embedded database in ${config.dataDir}; set ARENA_DATA_DIR, or DATABASE_URL`);
  const logFile = openLogFile(path.join(config.dataDir, 'logs'), 'postgres.log', config.retention);
  const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.pgPort, log: logFile.write }).catch(
    async (err: unknown) => {
      await logFile.close();
      throw err;
    },
  );
  opts.log(`started ${where} on 127.0.0.1:${config.pgPort} for this command`);
  try {
    return await work({ url: pg.url, where, embedded: true });
  } finally {
    await pg.stop();
    await logFile.close();
  }
}

/** Whether a server answers at `url`: refused means none runs there; any other failure is an error. */
async function answers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ECONNREFUSED') return false;
    throw new CommandError(`cannot reach ${url.replace(/:[^:@/]*@/, '@')}: ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
