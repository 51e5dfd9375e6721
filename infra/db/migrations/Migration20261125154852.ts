import { Migration } from '@mikro-orm/migrations';

/**
 * Boards people can reproduce: the published votes (with their board and the style of both
 * answers), a cached row per agent per board (overall or a category's, raw or controlled for
 * style), and each controlled board's style coefficients. The cached rows already there become
 * the overall raw board's; the votes already cast are published by the next refresh.
 */
export class Migration20261125154852 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "leaderboard_coefficients" ("board" varchar(100) not null, "name" varchar(32) not null, "ordinal" int not null, "estimate" double precision not null, "ci_low" double precision not null, "ci_high" double precision not null, "computed_at" timestamptz(6) not null, constraint "leaderboard_coefficients_pkey" primary key ("board", "name"));`,
    );

    this.addSql(
      `create table "public_votes" ("battle_id" int not null, "category" varchar(100) not null, "published_at" timestamptz(6) not null, "a_length" int not null, "a_headers" int not null, "a_list_items" int not null, "a_bold" int not null, "b_length" int not null, "b_headers" int not null, "b_list_items" int not null, "b_bold" int not null, constraint "public_votes_pkey" primary key ("battle_id"));`,
    );
    this.addSql(
      `alter table "public_votes" add constraint "public_votes_battle_id_foreign" foreign key ("battle_id") references "battles" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(`alter table "leaderboard_entries" drop constraint "leaderboard_entries_pkey";`);
    this.addSql(
      `alter table "leaderboard_entries" add column "board" varchar(100) not null default 'all', add column "style_control" boolean not null default false;`,
    );
    this.addSql(
      `alter table "leaderboard_entries" alter column "board" drop default, alter column "style_control" drop default;`,
    );
    this.addSql(`create index "leaderboard_entries_agent_id_index" on "leaderboard_entries" ("agent_id");`);
    this.addSql(
      `alter table "leaderboard_entries" add constraint "leaderboard_entries_pkey" primary key ("board", "style_control", "agent_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "leaderboard_coefficients" cascade;`);
    this.addSql(`drop table if exists "public_votes" cascade;`);

    this.addSql(`delete from "leaderboard_entries" where "board" <> 'all' or "style_control";`);
    this.addSql(`drop index "leaderboard_entries_agent_id_index";`);
    this.addSql(`alter table "leaderboard_entries" drop constraint "leaderboard_entries_pkey";`);
    this.addSql(`alter table "leaderboard_entries" drop column "board", drop column "style_control";`);
    this.addSql(
      `alter table "leaderboard_entries" add constraint "leaderboard_entries_pkey" primary key ("agent_id");`,
    );
  }
}
