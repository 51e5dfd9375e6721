/** The soak's storage figures: the database, Temporal's data and the data folder, in all, per table and per entry, each per 1,000 deliveries. */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Pool } from 'pg';
import type { SoakResult } from './report';

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(full);
    else if (entry.isFile()) total += (await fs.stat(full).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/** Measures the stack's data folder `dir` and its database, per 1,000 deliveries in the database. */
export async function measureStorage(pool: Pool, dir: string): Promise<SoakResult['storage']> {
  const { rows: sizes } = await pool.query<{ db: string; n: number }>(
    `select pg_database_size(current_database())::text as db, (select count(*)::int from sessions) as n`,
  );
  const mb = (bytes: number) => bytes / 2 ** 20;
  const databaseMb = mb(Number(sizes[0]!.db));
  const temporalMb = mb(await folderBytes(path.join(dir, 'temporal')));
  const dataFolderMb = mb(await folderBytes(dir));
  const total = sizes[0]!.n;
  const per = (v: number) => (total > 0 ? (v * 1000) / total : Number.NaN);
  const { rows: tableRows } = await pool.query<{ table: string; bytes: string }>(
    `select relname as table, pg_total_relation_size(relid)::text as bytes from pg_stat_user_tables
     order by pg_total_relation_size(relid) desc, relname`,
  );
  const tables: SoakResult['storage']['tables'] = [];
  for (const t of tableRows) {
    const { rows: n } = await pool.query<{ n: number }>(`select count(*)::int as n from "${t.table}"`);
    const tableMb = mb(Number(t.bytes));
    tables.push({ table: t.table, rows: n[0]!.n, mb: tableMb, perThousandMb: per(tableMb) });
  }
  const folders: SoakResult['storage']['folders'] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const entryMb = mb(entry.isDirectory() ? await folderBytes(full) : (await fs.stat(full)).size);
    folders.push({
      entry: entry.isDirectory() ? `${entry.name}/` : entry.name,
      mb: entryMb,
      perThousandMb: per(entryMb),
    });
  }
  folders.sort((a, b) => b.mb - a.mb);
  return {
    deliveries: total,
    databaseMb,
    temporalMb,
    dataFolderMb,
    perThousand: { databaseMb: per(databaseMb), temporalMb: per(temporalMb), dataFolderMb: per(dataFolderMb) },
    tables,
    folders,
  };
}
