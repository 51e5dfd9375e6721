/**
 * @fastify/rate-limit's store in PostgreSQL: one row per budget (an action and who spends it), so
 * every route and every API process that counts the same action counts against the same row.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';

/** Budgets whose window ended are deleted at most this often per process. */
const CLEAR_ENDED_EVERY_MS = 60_000;

// One statement, atomic under concurrency: spends one, or starts the window afresh once it has ended.
const SPEND = `
  insert into rate_limit_budgets as b (key, used, resets_at) values (?, 1, now() + ? * interval '1 millisecond')
  on conflict (key) do update set
    used = case when b.resets_at <= now() then 1 else b.used + 1 end,
    resets_at = case when b.resets_at <= now() then excluded.resets_at else b.resets_at end
  returning used, greatest(0, ceil(extract(epoch from resets_at - now()) * 1000))::int as ttl_ms`;

type Spent = Parameters<Parameters<FastifyRateLimitStore['incr']>[1]>[1];

/** The store class @fastify/rate-limit instantiates, bound to this ORM's connection pool. */
export function postgresBudgetStore(orm: MikroORM, log: FastifyBaseLogger): FastifyRateLimitStoreCtor {
  let clearAfter = 0;
  const clearEnded = () => {
    if (Date.now() < clearAfter) return;
    clearAfter = Date.now() + CLEAR_ENDED_EVERY_MS;
    // A budget is only worth keeping while its window runs; nothing waits for this.
    orm.em
      .getConnection()
      .execute(`delete from rate_limit_budgets where resets_at < now()`)
      .catch((err: Error) => log.warn({ err: err.message }, 'could not clear ended rate-limit budgets'));
  };

  return class PostgresBudgetStore implements FastifyRateLimitStore {
    incr(key: string, done: (error: Error | null, spent?: Spent) => void, timeWindow: number): void {
      clearEnded();
      orm.em
        .getConnection()
        .execute<Array<{ used: number; ttl_ms: number }>>(SPEND, [key, timeWindow])
        .then(
          ([row]) => done(null, { current: row!.used, ttl: row!.ttl_ms }),
          // The request fails as any request does while the database is down: 503, with Retry-After.
          (err: Error) => done(err),
        );
    }

    /** Routes share the store: the key, which names the action, decides which budget is spent. */
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
