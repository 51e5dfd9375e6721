/**
 * One dispatch step's session creation, measured on its own: `insertMainDeliveryBatch` called in
 * batches of ARENA_DISPATCH_BATCH, one transaction each, as the dispatch activity runs it, until
 * every due agent has its session. No deliveries are started; the sessions are deleted afterwards
 * so the next size starts from the same arena.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import type { ArenaSettings } from '../../infra/config';
import { insertMainDeliveryBatch } from '../../infra/db/repositories/delivery.repository';

export interface DispatchStep {
  /** Sessions made (one per due agent served). */
  sessions: number;
  batches: number;
  batchSize: number;
  /** Wall time of each batch's transaction, ms. */
  batchMs: number[];
  totalMs: number;
}

const KEY_PREFIX = 'bench-scale-dispatch';

export async function measureDispatchStep(
  orm: MikroORM,
  pool: Pool,
  arena: Pick<ArenaSettings, 'dispatchBatch' | 'requireGym' | 'minGapSeconds' | 'mainDeadlineSeconds'>,
  dueAgents: number,
  label: string,
): Promise<DispatchStep> {
  const batchMs: number[] = [];
  let sessions = 0;
  const started = performance.now();
  while (sessions < dueAgents) {
    const limit = Math.min(arena.dispatchBatch, dueAgents - sessions);
    const batchStarted = performance.now();
    const rows = await orm.em.fork().transactional((em) =>
      insertMainDeliveryBatch(em, {
        requireGym: arena.requireGym,
        minGapSeconds: arena.minGapSeconds,
        asOf: null,
        limit,
        deadlineSeconds: arena.mainDeadlineSeconds,
        keyPrefix: `${KEY_PREFIX}:${label}:${batchMs.length}:`,
      }),
    );
    batchMs.push(performance.now() - batchStarted);
    sessions += rows.length;
    if (rows.length === 0) break;
  }
  const totalMs = performance.now() - started;
  await deleteDispatched(pool);
  return { sessions, batches: batchMs.length, batchSize: arena.dispatchBatch, batchMs, totalMs };
}

/**
 * Nothing refers to the step's sessions (no delivery, battle or pair was made for them), so the
 * foreign-key checks of the delete are skipped (the bench's database user is its superuser):
 * battles.session_a_id and session_b_id have no index, and checking them scans every battle for
 * each deleted session, minutes at a million votes.
 */
async function deleteDispatched(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
    await client.query(`delete from sessions where kind = 'main' and dedupe_key like $1`, [`${KEY_PREFIX}:%`]);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
