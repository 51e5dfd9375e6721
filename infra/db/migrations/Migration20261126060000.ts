import { Migration } from '@mikro-orm/migrations';

/**
 * Coding tasks in suites: `arena` (the tasks written for this arena, every task so far) and
 * `humaneval` (OpenAI's HumanEval problems, imported by `arena tasks import humaneval`), with
 * where an imported task came from and under which licence; a benchmark run is one suite's.
 */
export class Migration20261126060000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "coding_tasks" add column "suite" varchar(40) not null default 'arena', add column "origin" text null;`,
    );
    this.addSql(`alter table "coding_tasks" alter column "suite" drop default;`);
    this.addSql(`create index "coding_tasks_suite_active_index" on "coding_tasks" ("suite", "active");`);
    this.addSql(`alter table "benchmark_runs" add column "suite" varchar(40) not null default 'arena';`);
    this.addSql(`alter table "benchmark_runs" alter column "suite" drop default;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "benchmark_runs" drop column "suite";`);
    this.addSql(`drop index "coding_tasks_suite_active_index";`);
    this.addSql(`alter table "coding_tasks" drop column "suite", drop column "origin";`);
  }
}
