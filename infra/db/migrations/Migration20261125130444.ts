import { Migration } from '@mikro-orm/migrations';

/**
 * Clean-room scoring: each live coding session leases a uid of its own (no two share one), and a
 * session's end records whether its test run was tampered with and whether an error was the arena's.
 */
export class Migration20261125130444 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "sandbox_uid_leases" ("uid" int not null, "session_id" int not null, "leased_at" timestamptz(6) not null, constraint "sandbox_uid_leases_pkey" primary key ("uid"));`,
    );
    this.addSql(
      `alter table "sandbox_uid_leases" add constraint "sandbox_uid_leases_session_id_unique" unique ("session_id");`,
    );

    this.addSql(
      `alter table "sandbox_uid_leases" add constraint "sandbox_uid_leases_session_id_foreign" foreign key ("session_id") references "coding_sessions" ("session_id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "coding_sessions" add column "tampered" text null, add column "arena_fault" boolean not null default false;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "sandbox_uid_leases" cascade;`);

    this.addSql(`alter table "coding_sessions" drop column "tampered", drop column "arena_fault";`);
  }
}
