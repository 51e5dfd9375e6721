import { Migration } from '@mikro-orm/migrations';

export class Migration20261122081858 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "prompts" ("id" serial primary key, "source" varchar(16) not null, "slug" varchar(100) null, "category" varchar(100) not null, "text" text not null, "created_at" timestamptz(6) not null);`,
    );
    this.addSql(`alter table "prompts" add constraint "prompts_slug_unique" unique ("slug");`);

    this.addSql(
      `create table "sessions" ("id" serial primary key, "agent_id" int not null, "kind" varchar(16) not null, "prompt_id" int not null, "mode" varchar(8) not null, "category" varchar(100) not null, "deadline_seconds" int not null, "status" varchar(16) not null default 'pending', "response" text null, "error" text null, "latency_ms" int null, "agent_latency_ms" int null, "push_state" varchar(16) null, "sent_at" timestamptz(6) null, "completed_at" timestamptz(6) null, "result_hash" varchar(64) null, "dedupe_key" varchar(200) null, "created_at" timestamptz(6) not null);`,
    );
    this.addSql(`create index "sessions_prompt_id_index" on "sessions" ("prompt_id");`);
    this.addSql(`alter table "sessions" add constraint "sessions_dedupe_key_unique" unique ("dedupe_key");`);
    this.addSql(`create index "sessions_agent_feed_index" on "sessions" ("agent_id", "id");`);

    this.addSql(
      `create table "work_items" ("session_id" int not null, "agent_id" int not null, "state" varchar(16) not null default 'queued', "leased_at" timestamptz(6) null, "created_at" timestamptz(6) not null, constraint "work_items_pkey" primary key ("session_id"));`,
    );
    this.addSql(`create index "work_items_agent_state_index" on "work_items" ("agent_id", "state", "session_id");`);

    this.addSql(
      `alter table "sessions" add constraint "sessions_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "sessions" add constraint "sessions_prompt_id_foreign" foreign key ("prompt_id") references "prompts" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "work_items" add constraint "work_items_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "work_items" add constraint "work_items_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "agents" add column "gym_attempt" int not null default 0, add column "gym_started_at" timestamptz(6) null, add column "gym_completed_at" timestamptz(6) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sessions" drop constraint "sessions_prompt_id_foreign";`);

    this.addSql(`alter table "work_items" drop constraint "work_items_session_id_foreign";`);

    this.addSql(`drop table if exists "prompts" cascade;`);

    this.addSql(`drop table if exists "sessions" cascade;`);

    this.addSql(`drop table if exists "work_items" cascade;`);

    this.addSql(
      `alter table "agents" drop column "gym_attempt", drop column "gym_started_at", drop column "gym_completed_at";`,
    );
  }
}
