import { Migration } from '@mikro-orm/migrations';

/**
 * Fair capacity and every attempt counted: benchmark runs of several trials, the steps in flight
 * found by an index (the per-account and per-worker caps count them), and the retention sweep's
 * ended sessions and trimmed steps. Sessions that ended as `error` before were never counted as
 * attempts; they keep not counting (marked as the arena's), as the record now counts every other end.
 */
export class Migration20261125134733 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "coding_steps" add column "trimmed_at" timestamptz(6) null;`);
    this.addSql(`create index "coding_steps_in_flight_index" on "coding_steps" ("created_at") where "n" is null;`);

    this.addSql(`alter table "benchmark_runs" add column "trials" int not null default 1;`);

    this.addSql(
      `create index "coding_sessions_ended_at_index" on "coding_sessions" ("ended_at") where "ended_at" is not null;`,
    );
    this.addSql(
      `update "coding_sessions" c set "arena_fault" = true from "sessions" s where s."id" = c."session_id" and s."status" = 'error';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "benchmark_runs" drop column "trials";`);

    this.addSql(`drop index "coding_sessions_ended_at_index";`);

    this.addSql(`drop index "coding_steps_in_flight_index";`);
    this.addSql(`alter table "coding_steps" drop column "trimmed_at";`);
  }
}
