import { Migration } from '@mikro-orm/migrations';

/**
 * Boards whose players are what agents claim (their model, their set of tools), rewritten as a
 * whole by the leaderboard refresh: one row per fitted board, its rows and style coefficients as
 * JSON (a claim board has tens of players, not thousands).
 */
export class Migration20261127200000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "claim_boards" (
      "by" varchar(10) not null,
      "board" varchar(100) not null,
      "style_control" boolean not null,
      "entries" jsonb not null,
      "coefficients" jsonb not null,
      "computed_at" timestamptz(6) not null,
      constraint "claim_boards_pkey" primary key ("by", "board", "style_control"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "claim_boards" cascade;`);
  }
}
