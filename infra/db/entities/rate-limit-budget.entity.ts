/** How much of one rate limit is spent: an action and who spends it (an account or a client address), until the window ends. */
import { EntitySchema } from '@mikro-orm/core';

export class RateLimitBudget {
  /** `<action>:account:<id>` or `<action>:ip:<address>` (an IPv6 client by its /64). */
  key!: string;
  /** Requests counted in the current window. */
  used!: number;
  resetsAt!: Date;
}

/** Read and written only by the rate-limit store's one statement; the table is unlogged (counts may be lost in a crash). */
export const RateLimitBudgetSchema = new EntitySchema<RateLimitBudget>({
  class: RateLimitBudget,
  tableName: 'rate_limit_budgets',
  properties: {
    key: { type: 'text', primary: true },
    used: { type: 'integer' },
    resetsAt: { type: 'datetime', length: 6 },
  },
});
