import { Migration } from '@mikro-orm/migrations';

/**
 * Coding sandbox sessions: the task catalogue, each session's coding side (task, token, steps,
 * score), its steps (the transcript) and benchmark runs.
 */
export class Migration20261123200000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "sessions_coding_agent_index" on "sessions" ("agent_id", "status") where "kind" = 'sandbox' and "category" = 'swe';`,
    );
    this.addSql(
      `create table "coding_tasks" ("id" varchar(100) not null, "title" varchar(200) not null, "language" varchar(20) not null, "statement" text not null, "manifest" jsonb not null, "files" jsonb not null, "hidden_tests" jsonb not null, "active" boolean not null default true, "added_at" timestamptz(6) not null, "retired_at" timestamptz(6) null, constraint "coding_tasks_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "coding_steps" ("id" serial primary key, "session_id" int not null, "n" int null, "kind" varchar(16) not null, "request" jsonb not null, "result" jsonb not null, "duration_ms" int not null, "created_at" timestamptz(6) not null);`,
    );
    this.addSql(
      `alter table "coding_steps" add constraint "coding_steps_session_n_unique" unique ("session_id", "n");`,
    );

    this.addSql(
      `create table "benchmark_runs" ("id" serial primary key, "agent_id" int not null, "tasks" int not null, "created_at" timestamptz(6) not null, "finished_at" timestamptz(6) null);`,
    );
    this.addSql(`create index "benchmark_runs_agent_id_index" on "benchmark_runs" ("agent_id");`);
    this.addSql(
      `create unique index "benchmark_runs_one_running_unique" on "benchmark_runs" ("agent_id") where "finished_at" is null;`,
    );

    this.addSql(
      `create table "coding_sessions" ("session_id" int not null, "task_id" varchar(100) not null, "token_nonce" varchar(64) not null, "token_hash" varchar(64) null, "max_steps" int not null, "steps" int not null default 0, "worker_queue" varchar(200) null, "tests_passed" int null, "tests_total" int null, "summary" text null, "benchmark_run_id" int null, "expires_at" timestamptz(6) not null, "ended_at" timestamptz(6) null, constraint "coding_sessions_pkey" primary key ("session_id"));`,
    );
    this.addSql(`create index "coding_sessions_task_id_index" on "coding_sessions" ("task_id");`);
    this.addSql(
      `alter table "coding_sessions" add constraint "coding_sessions_token_hash_unique" unique ("token_hash");`,
    );
    this.addSql(`create index "coding_sessions_benchmark_run_id_index" on "coding_sessions" ("benchmark_run_id");`);

    this.addSql(
      `alter table "coding_steps" add constraint "coding_steps_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "benchmark_runs" add constraint "benchmark_runs_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "coding_sessions" add constraint "coding_sessions_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "coding_sessions" add constraint "coding_sessions_task_id_foreign" foreign key ("task_id") references "coding_tasks" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "coding_sessions" add constraint "coding_sessions_benchmark_run_id_foreign" foreign key ("benchmark_run_id") references "benchmark_runs" ("id") on update cascade on delete set null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "sessions_coding_agent_index";`);
    this.addSql(`alter table "coding_sessions" drop constraint "coding_sessions_task_id_foreign";`);

    this.addSql(`alter table "coding_sessions" drop constraint "coding_sessions_benchmark_run_id_foreign";`);

    this.addSql(`drop table if exists "coding_tasks" cascade;`);

    this.addSql(`drop table if exists "coding_steps" cascade;`);

    this.addSql(`drop table if exists "benchmark_runs" cascade;`);

    this.addSql(`drop table if exists "coding_sessions" cascade;`);
  }
}
