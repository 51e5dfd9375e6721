/**
 * A fresh, migrated database per test file on the run's embedded PostgreSQL: a copy of the run's
 * template database, which the global set-up migrates and seeds once (createTemplateDatabase).
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrateDatabase } from '../../infra/db/migrate';

function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url)
    throw new Error('TEST_PG_ADMIN_URL is not set: run the tests through jest (its global setup starts PostgreSQL)');
  return url;
}

async function admin<T>(run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * The next free block of a million ids in this run. Drawn from a sequence on the run's server, not
 * at random: with a hundred databases in 2,000 random blocks, two of them shared one most runs.
 */
async function nextIdBase(): Promise<number> {
  const n = await admin(async (c) => {
    // Two test files may create it at once; the loser's error says it exists, which is all we need.
    await c.query('create sequence if not exists arena_test_id_blocks').catch((err: { code?: string }) => {
      if (err.code !== '23505' && err.code !== '42P07') throw err;
    });
    const { rows } = await c.query<{ n: string }>(`select nextval('arena_test_id_blocks') as n`);
    return Number(rows[0]!.n);
  });
  return (((n - 1) % 2000) + 1) * 1_000_000;
}

/**
 * Workflow ids are made from row ids (`delivery-<session id>`, `gym-<agent id>-1`) and are unique
 * per Temporal namespace, which every test file shares. Starting each database's ids at its own
 * block keeps one file's workflows from colliding with another's.
 */
async function spreadIds(url: string): Promise<number> {
  const base = await nextIdBase();
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ seq: string }>(
      `select sequencename as seq from pg_sequences where schemaname = 'public'`,
    );
    for (const { seq } of rows)
      await client.query(`alter sequence ${client.escapeIdentifier(seq)} restart with ${base}`);
  } finally {
    await client.end();
  }
  return base;
}

export interface TestDatabase {
  url: string;
  /** The first id of its block (spreadIds). */
  idBase: number;
  drop(): Promise<void>;
}

/** Migrates a database and starts its ids at a block of their own (see spreadIds), as every test database is; answers the block's first id. */
export async function prepareDatabase(url: string): Promise<number> {
  await migrateDatabase(url);
  return spreadIds(url);
}

/** The database every test database is copied from; global-setup.ts makes it (createTemplateDatabase). */
export const TEMPLATE_DATABASE = 'arena_test_template';

function databaseUrl(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Creates and migrates the run's template database, once, before any test file starts. Copying it
 * is one statement, where every file once ran the migrations and the seeds on a database of its own.
 */
export async function createTemplateDatabase(): Promise<void> {
  await admin((c) => c.query(`create database ${TEMPLATE_DATABASE}`));
  await migrateDatabase(databaseUrl(TEMPLATE_DATABASE));
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `arena_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name} template ${TEMPLATE_DATABASE}`));
  const url = databaseUrl(name);
  const idBase = await spreadIds(url);
  return {
    url,
    idBase,
    drop: () => admin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}
