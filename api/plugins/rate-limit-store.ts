/**
 * @fastify/rate-limit's store in PostgreSQL: one row per budget (an action and who spends it), so
 * every route and every API process that counts the same action counts against the same row.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { clearEndedBudgets, spendBudget } from '../../infra/db/repositories/rate-limit-budget.repository';

/** Budgets whose window ended are deleted at most this often per process. */
const CLEAR_ENDED_EVERY_MS = 60_000;

type Spent = Parameters<Parameters<FastifyRateLimitStore['incr']>[1]>[1];

/** The store class @fastify/rate-limit instantiates, bound to this ORM's connection pool. */
export function postgresBudgetStore(orm: MikroORM, log: FastifyBaseLogger): FastifyRateLimitStoreCtor {
  let clearAfter = 0;
  const clearEnded = () => {
    if (Date.now() < clearAfter) return;
    clearAfter = Date.now() + CLEAR_ENDED_EVERY_MS;
    // Nothing waits for this.
    clearEndedBudgets(orm.em).catch((err: Error) =>
      log.warn({ err: err.message }, 'could not clear ended rate-limit budgets'),
    );
  };

  return class PostgresBudgetStore implements FastifyRateLimitStore {
    incr(key: string, done: (error: Error | null, spent?: Spent) => void, timeWindow: number): void {
      clearEnded();
      spendBudget(orm.em, key, timeWindow).then(
        (spent) => done(null, { current: spent.used, ttl: spent.ttl_ms }),
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
