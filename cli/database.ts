/** The database an operator command talks to: DATABASE_URL, or the embedded one `npm start` runs in the data folder. */
import fs from 'node:fs';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { ConfigError, type Config } from '../infra/config';
import { ormConfig } from '../infra/db/orm.config';

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
  const orm = await MikroORM.init(ormConfig(operatorDatabaseUrl(config), { pool: { min: 0, max: 2 } }));
  try {
    return await work(orm);
  } finally {
    await orm.close(true);
  }
}
