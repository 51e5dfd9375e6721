import { Migration } from '@mikro-orm/migrations';

/**
 * When an agent last showed it can answer: a pull agent's poll or result, a push agent's passing
 * ping or answered delivery. Whether it is online is read from it (domain/agent-state.ts).
 */
export class Migration20261127160000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "agents" add column "last_seen_at" timestamptz(6) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "agents" drop column "last_seen_at";`);
  }
}
