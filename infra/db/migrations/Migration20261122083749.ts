import { Migration } from '@mikro-orm/migrations';

export class Migration20261122083749 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "judge_flags" ("judge_id" int not null, "votes" int not null, "p_value" double precision not null, "flagged_at" timestamptz(6) not null, constraint "judge_flags_pkey" primary key ("judge_id"));`,
    );

    this.addSql(
      `create table "leaderboard_entries" ("agent_id" int not null, "rank" int not null, "bt_rating" double precision not null, "ci_low" double precision not null, "ci_high" double precision not null, "votes" int not null, "wins" int not null, "losses" int not null, "ties" int not null, "computed_at" timestamptz(6) not null, constraint "leaderboard_entries_pkey" primary key ("agent_id"));`,
    );

    this.addSql(
      `create table "battles" ("id" serial primary key, "prompt_id" int not null, "judge_id" int not null, "session_a_id" int not null, "session_b_id" int not null, "agent_a_id" int not null, "agent_b_id" int not null, "pair_low" int not null, "pair_high" int not null, "live" boolean not null default false, "status" varchar(16) not null default 'open', "winner" varchar(16) null, "voted_at" timestamptz(6) null, "created_at" timestamptz(6) not null);`,
    );
    this.addSql(`create index "battles_agent_a_id_index" on "battles" ("agent_a_id");`);
    this.addSql(`create index "battles_agent_b_id_index" on "battles" ("agent_b_id");`);
    this.addSql(`create index "battles_pair_index" on "battles" ("pair_low", "pair_high");`);
    this.addSql(`create index "battles_judge_voted_index" on "battles" ("judge_id", "voted_at");`);
    this.addSql(
      `alter table "battles" add constraint "battles_judge_pair_unique" unique ("judge_id", "pair_low", "pair_high");`,
    );

    this.addSql(
      `create table "rating_changes" ("id" serial primary key, "agent_id" int not null, "battle_id" int not null, "before" int not null, "after" int not null, "created_at" timestamptz(6) not null);`,
    );
    this.addSql(`create index "rating_changes_agent_history_index" on "rating_changes" ("agent_id", "id");`);
    this.addSql(
      `alter table "rating_changes" add constraint "rating_changes_agent_battle_unique" unique ("agent_id", "battle_id");`,
    );

    this.addSql(
      `alter table "judge_flags" add constraint "judge_flags_judge_id_foreign" foreign key ("judge_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "leaderboard_entries" add constraint "leaderboard_entries_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "battles" add constraint "battles_prompt_id_foreign" foreign key ("prompt_id") references "prompts" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "battles" add constraint "battles_judge_id_foreign" foreign key ("judge_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "battles" add constraint "battles_session_a_id_foreign" foreign key ("session_a_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "battles" add constraint "battles_session_b_id_foreign" foreign key ("session_b_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "battles" add constraint "battles_agent_a_id_foreign" foreign key ("agent_a_id") references "agents" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "battles" add constraint "battles_agent_b_id_foreign" foreign key ("agent_b_id") references "agents" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "rating_changes" add constraint "rating_changes_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "rating_changes" add constraint "rating_changes_battle_id_foreign" foreign key ("battle_id") references "battles" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "prompts" add column "retired_at" timestamptz(6) null, add column "both_bad_count" int not null default 0, add column "answer_count" int not null default 0;`,
    );

    this.addSql(
      `create index "sessions_main_agent_index" on "sessions" ("agent_id", "created_at") where "kind" = 'main';`,
    );
    this.addSql(
      `create index "sessions_main_answered_index" on "sessions" ("prompt_id") where "kind" = 'main' and "status" = 'answered';`,
    );
    this.addSql(
      `create unique index "sessions_main_prompt_unique" on "sessions" ("agent_id", "prompt_id") where "kind" = 'main';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "rating_changes" drop constraint "rating_changes_battle_id_foreign";`);

    this.addSql(`drop table if exists "judge_flags" cascade;`);

    this.addSql(`drop table if exists "leaderboard_entries" cascade;`);

    this.addSql(`drop table if exists "battles" cascade;`);

    this.addSql(`drop table if exists "rating_changes" cascade;`);

    this.addSql(
      `alter table "prompts" drop column "retired_at", drop column "both_bad_count", drop column "answer_count";`,
    );

    this.addSql(`drop index "sessions_main_agent_index";`);
    this.addSql(`drop index "sessions_main_answered_index";`);
    this.addSql(`alter table "sessions" drop constraint "sessions_main_prompt_unique";`);
  }
}
