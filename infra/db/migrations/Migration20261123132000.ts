import { Migration } from '@mikro-orm/migrations';

/**
 * A live battle's prompt may be offered to the pool by the person who wrote it: when, by whom, and
 * how operators reviewed it (offered, accepted or rejected). The partial index serves the review list.
 */
export class Migration20261123132000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "prompts" add column "offered_at" timestamptz(6) null, add column "offered_by_id" int null, add column "review" varchar(16) null;`,
    );
    this.addSql(
      `alter table "prompts" add constraint "prompts_offered_by_id_foreign" foreign key ("offered_by_id") references "users" ("id") on update cascade on delete set null;`,
    );
    this.addSql(`create index "prompts_offered_review_index" on "prompts" ("offered_at") where "review" = 'offered';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "prompts_offered_review_index";`);
    this.addSql(`alter table "prompts" drop constraint "prompts_offered_by_id_foreign";`);
    this.addSql(`alter table "prompts" drop column "offered_at", drop column "offered_by_id", drop column "review";`);
  }
}
