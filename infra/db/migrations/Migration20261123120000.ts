import { Migration } from '@mikro-orm/migrations';

/**
 * Rate-limit budgets, shared by every API process. Unlogged: the counts are rewritten on most
 * requests and worth nothing after a crash, so they skip the write-ahead log (and replicas).
 */
export class Migration20261123120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create unlogged table "rate_limit_budgets" ("key" text not null, "used" int not null, "resets_at" timestamptz(6) not null, constraint "rate_limit_budgets_pkey" primary key ("key"));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "rate_limit_budgets" cascade;`);
  }
}
