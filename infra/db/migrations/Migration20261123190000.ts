import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes the arena's hot paths were missing at scale: a judge's open battle (read on every
 * judge/next) and the battles of a session (followed when a session is deleted, by the cascade).
 */
export class Migration20261123190000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "battles_judge_open_index" on "battles" ("judge_id") where "status" = 'open';`);
    this.addSql(`create index "battles_session_a_id_index" on "battles" ("session_a_id");`);
    this.addSql(`create index "battles_session_b_id_index" on "battles" ("session_b_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "battles_session_b_id_index";`);
    this.addSql(`drop index "battles_session_a_id_index";`);
    this.addSql(`drop index "battles_judge_open_index";`);
  }
}
