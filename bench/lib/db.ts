/** The bench's own PostgreSQL connections: reading what the service recorded, and seeding what would take too long through the API. */
import { Pool } from 'pg';

export function benchPool(databaseUrl: string): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max: 3 });
  pool.on('error', () => undefined); // a server going away at teardown must not crash the bench
  return pool;
}

/**
 * When each session was recorded (wall ms), for those of `ids` that are no longer pending; polls
 * until all are, or `timeoutMs` passes. Only the ones still missing are asked for each time.
 * `table`: another table with the same `id`, `status` and `completed_at` (the same-job baseline's).
 */
export async function sessionCompletions(
  pool: Pool,
  ids: number[],
  timeoutMs: number,
  onProgress?: (done: number) => void,
  table: 'sessions' | 'same_job_deliveries' = 'sessions',
): Promise<Map<number, number>> {
  const done = new Map<number, number>();
  let missing = ids;
  const until = Date.now() + timeoutMs;
  while (missing.length > 0 && Date.now() < until) {
    const { rows } = await pool.query<{ id: number; done_ms: number }>(
      `select id, (extract(epoch from completed_at) * 1000)::float8 as done_ms from ${table} where id = any($1::int[]) and status <> 'pending'`,
      [missing],
    );
    for (const row of rows) done.set(row.id, row.done_ms);
    missing = missing.filter((id) => !done.has(id));
    onProgress?.(done.size);
    if (missing.length > 0) await new Promise((r) => setTimeout(r, 250));
  }
  return done;
}
