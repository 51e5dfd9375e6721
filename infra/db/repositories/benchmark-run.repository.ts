/** The owner of benchmark runs (`benchmark_runs`): one run at a time per agent, and how far it got. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { run } from './sql';

/** Starts a benchmark run of `tasks` tasks, `trials` times each; undefined when the agent already has one running. */
export async function startBenchmarkRun(
  em: EntityManager,
  agentId: number,
  suite: string,
  tasks: number,
  trials: number,
): Promise<number | undefined> {
  const rows = await run<{ id: number }>(
    em,
    `insert into benchmark_runs (agent_id, suite, tasks, trials, created_at) values (?, ?, ?, ?, now())
     on conflict do nothing returning id`,
    [agentId, suite, tasks, trials],
  );
  return rows[0]?.id;
}

/** Closes a benchmark run, whatever it has left: its workflow has ended, or could not start. */
export async function finishBenchmarkRun(em: EntityManager, runId: number): Promise<void> {
  await run(em, `update benchmark_runs set finished_at = now() where id = ? and finished_at is null`, [runId]);
}

export interface BenchmarkProgress {
  id: number;
  /** Sessions the run plans: its tasks times its trials. */
  tasks: number;
  ended: number;
  passed: number;
  created_at: Date;
  finished_at: Date | null;
}

/** An agent's latest benchmark run and how far it got. */
export async function latestBenchmarkRun(em: EntityManager, agentId: number): Promise<BenchmarkProgress | undefined> {
  const [row] = await run<BenchmarkProgress>(
    em,
    `select b.id, b.tasks * b.trials as tasks, b.created_at, b.finished_at,
       count(*) filter (where s.status not in ('pending', 'running'))::int as ended,
       count(*) filter (where s.status = 'passed')::int as passed
     from benchmark_runs b left join coding_sessions c on c.benchmark_run_id = b.id left join sessions s on s.id = c.session_id
     where b.agent_id = ? group by b.id order by b.id desc limit 1`,
    [agentId],
  );
  return row;
}
