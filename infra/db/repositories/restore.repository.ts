/**
 * What a restore from backup changes: the work that was under way when the backup was made had its
 * workflows in Temporal, which the backup does not hold, so nothing would ever finish it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryKind } from '../../../domain/deliveries';
import { run } from './sql';

export interface InterruptedWork {
  /** The deliveries ended as errors, oldest first. */
  sessions: Array<{ id: number; kind: DeliveryKind }>;
  /** Live battles that were running: open when both sides had answered, void otherwise. */
  battles: number;
  /** Benchmark runs that were under way, now finished with the sessions they had. */
  benchmarkRuns: number;
  /** Agents whose gym had not finished: their owners restart it. */
  unfinishedGyms: number[];
}

/** Ends every delivery and run still in flight, in the caller's transaction. */
export async function endWorkInterruptedByRestore(em: EntityManager, error: string): Promise<InterruptedWork> {
  const sessions = await run<{ id: number; kind: DeliveryKind }>(
    em,
    `update sessions set status = 'error', error = ?, error_detail = null, completed_at = now()
     where status in ('pending', 'running') returning id, kind`,
    [error],
  );
  const ids = sessions.map((s) => s.id).sort((a, b) => a - b);
  if (ids.length > 0) {
    const list = ids.map(() => '?').join(', ');
    // Not the agent's fault: a coding session ended so counts against no one's record.
    await run(em, `update coding_sessions set ended_at = now(), arena_fault = true where session_id in (${list})`, ids);
    await run(
      em,
      `update work_items set state = 'expired' where session_id in (${list}) and state in ('queued', 'leased')`,
      ids,
    );
  }
  // No sandbox runs after a restore: every uid is free again.
  await run(em, `delete from sandbox_uid_leases`);
  const battles = await run(
    em,
    `update battles b set status = case
       when (select count(*) from sessions s where s.id in (b.session_a_id, b.session_b_id)
             and s.status = 'answered' and length(trim(s.response)) > 0) = 2 then 'open' else 'void' end
     where b.status = 'running' returning id`,
  );
  const runs = await run(em, `update benchmark_runs set finished_at = now() where finished_at is null returning id`);
  const gyms = await run<{ id: number }>(
    em,
    `select id from agents where gym_attempt > 0 and not gym_complete and not deactivated order by id`,
  );
  return {
    sessions: ids.map((id) => sessions.find((s) => s.id === id)!),
    battles: battles.length,
    benchmarkRuns: runs.length,
    unfinishedGyms: gyms.map((g) => g.id),
  };
}
