import { Migration } from '@mikro-orm/migrations';

export class Migration20261122214533 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "agents" add column "consecutive_failures" int not null default 0, add column "failing_since" timestamptz(6) null;`,
    );

    this.addSql(`alter table "sessions" add column "redelivery_of_id" int null;`);
    this.addSql(
      `alter table "sessions" add constraint "sessions_redelivery_of_id_foreign" foreign key ("redelivery_of_id") references "sessions" ("id") on update cascade on delete set null;`,
    );
    this.addSql(`create index "sessions_redelivery_of_id_index" on "sessions" ("redelivery_of_id");`);
    // Expression indexes are not diffed: an operator's redelivery may repeat a main prompt.
    this.addSql(`drop index "sessions_main_prompt_unique";`);
    this.addSql(
      `create unique index "sessions_main_prompt_unique" on "sessions" ("agent_id", "prompt_id") where "kind" = 'main' and "redelivery_of_id" is null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "sessions_main_prompt_unique";`);
    this.addSql(
      `create unique index "sessions_main_prompt_unique" on "sessions" ("agent_id", "prompt_id") where "kind" = 'main';`,
    );
    this.addSql(`alter table "sessions" drop constraint "sessions_redelivery_of_id_foreign";`);

    this.addSql(`alter table "agents" drop column "consecutive_failures", drop column "failing_since";`);

    this.addSql(`drop index "sessions_redelivery_of_id_index";`);
    this.addSql(`alter table "sessions" drop column "redelivery_of_id";`);
  }
}
