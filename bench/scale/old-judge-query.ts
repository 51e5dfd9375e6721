/**
 * The baseline of the scale figure: judge/next's query before candidate pairs (`leastJudgedPair`,
 * removed from infra/db/repositories/battle.repository.ts in b92ff0f), kept here verbatim apart
 * from pg's `$n` placeholders. It joins every answer to a prompt with every other one and orders
 * all the pairs by a correlated count, so its cost grows with the square of a prompt's answers.
 */
import type { Pool } from 'pg';

export const OLD_LEAST_JUDGED_PAIR_SQL = `with answers as (
       select s.id, s.prompt_id, s.agent_id, a.owner_id
       from sessions s join agents a on a.id = s.agent_id
       where s.kind = 'main' and s.status = 'answered' and length(trim(s.response)) > 0
         and not a.deactivated and a.owner_id <> $1)
     select x.prompt_id, x.id as low, y.id as high, x.agent_id as low_agent, y.agent_id as high_agent
     from answers x join answers y on y.prompt_id = x.prompt_id and y.id > x.id and y.owner_id <> x.owner_id
     where not exists (select 1 from battles j where j.judge_id = $2 and j.pair_low = x.id and j.pair_high = y.id)
     order by (select count(*) from battles v where v.pair_low = x.id and v.pair_high = y.id and v.status = 'voted'), random()
     limit 1`;

/** What one call of the old query took, or that it passed the limit (PostgreSQL cancelled it). */
export type OldQueryCall = { ms: number; timedOut: false } | { ms: number; timedOut: true };

/**
 * One call of the old query for `judgeId`, on its own connection with a statement timeout of
 * `limitMs`, so a call that would take minutes costs the bench only the limit.
 */
export async function oldLeastJudgedPair(pool: Pool, judgeId: number, limitMs: number): Promise<OldQueryCall> {
  const client = await pool.connect();
  try {
    await client.query(`set statement_timeout = ${Math.ceil(limitMs)}`);
    const started = performance.now();
    try {
      await client.query(OLD_LEAST_JUDGED_PAIR_SQL, [judgeId, judgeId]);
      return { ms: performance.now() - started, timedOut: false };
    } catch (err) {
      // 57014: query_canceled, what statement_timeout raises.
      if ((err as { code?: string }).code === '57014') return { ms: performance.now() - started, timedOut: true };
      throw err;
    } finally {
      await client.query('reset statement_timeout');
    }
  } finally {
    client.release();
  }
}
