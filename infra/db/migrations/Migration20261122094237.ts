import { Migration } from '@mikro-orm/migrations';

export class Migration20261122094237 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "user_identities" ("provider" varchar(255) not null, "subject" varchar(255) not null, "user_id" int not null, "created_at" timestamptz(6) not null, constraint "user_identities_pkey" primary key ("provider", "subject"));`,
    );
    this.addSql(`create index "user_identities_user_id_index" on "user_identities" ("user_id");`);

    this.addSql(
      `create table "user_passwords" ("user_id" int not null, "hash" text not null, "updated_at" timestamptz(6) not null, constraint "user_passwords_pkey" primary key ("user_id"));`,
    );

    this.addSql(
      `create table "web_sessions" ("id" varchar(64) not null, "user_id" int not null, "csrf_secret" varchar(64) not null, "created_at" timestamptz(6) not null, "expires_at" timestamptz(6) not null, "last_seen_at" timestamptz(6) not null, constraint "web_sessions_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "web_sessions_user_id_index" on "web_sessions" ("user_id");`);
    this.addSql(`create index "web_sessions_expires_at_index" on "web_sessions" ("expires_at");`);

    this.addSql(
      `alter table "user_identities" add constraint "user_identities_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "user_passwords" add constraint "user_passwords_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "web_sessions" add constraint "web_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "user_identities" cascade;`);

    this.addSql(`drop table if exists "user_passwords" cascade;`);

    this.addSql(`drop table if exists "web_sessions" cascade;`);
  }
}
