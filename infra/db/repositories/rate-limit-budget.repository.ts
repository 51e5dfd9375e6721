/** The SQL of `rate_limit_budgets`: one row per budget (an action and who spends it), shared by every API process. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { onlyRow, run } from './sql';

// One statement, atomic under concurrency: spends one, or starts the window afresh once it has ended.
const SPEND = `
  insert into rate_limit_budgets as b (key, used, resets_at) values (?, 1, now() + ? * interval '1 millisecond')
  on conflict (key) do update set
    used = case when b.resets_at <= now() then 1 else b.used + 1 end,
    resets_at = case when b.resets_at <= now() then excluded.resets_at else b.resets_at end
  returning used, greatest(0, ceil(extract(epoch from resets_at - now()) * 1000))::int as ttl_ms`;

export interface SpentBudget {
  /** Spent in the current window, this spending included. */
  used: number;
  /** Until the window ends, in milliseconds. */
  ttl_ms: number;
}

/** Spends one from the budget `key`, whose window lasts `windowMs` from its first spending. */
export async function spendBudget(em: EntityManager, key: string, windowMs: number): Promise<SpentBudget> {
  return onlyRow(await run<SpentBudget>(em, SPEND, [key, windowMs]), `budget ${key}`);
}

/** Deletes budgets whose window ended: a budget is only worth keeping while its window runs. */
export async function clearEndedBudgets(em: EntityManager): Promise<void> {
  await run(em, `delete from rate_limit_budgets where resets_at < now()`);
}
