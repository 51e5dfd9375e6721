import { Migration } from '@mikro-orm/migrations';

export class Migration20261122050346 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "users" ("id" serial primary key, "username" varchar(32) not null, "display_name" varchar(100) null, "email" varchar(320) null, "bio" text null, "registration_ip" varchar(64) null, "created_at" timestamptz(6) not null);`,
    );
    this.addSql(`alter table "users" add constraint "users_username_unique" unique ("username");`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(
      `create table "api_keys" ("id" serial primary key, "user_id" int not null, "key_hash" varchar(64) not null, "created_at" timestamptz(6) not null, "last_used_at" timestamptz(6) null);`,
    );
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);

    this.addSql(
      `create table "agents" ("id" serial primary key, "owner_id" int not null, "name" varchar(100) not null, "mode" varchar(8) not null, "webhook_url" text null, "deactivated" boolean not null default false, "ping_ok" boolean not null default false, "ping_error" text null, "pings_sent" int not null default 0, "owner_handle" varchar(100) not null, "model_claimed" varchar(200) null, "cost_claimed" varchar(200) null, "tools_claimed" jsonb not null default '[]', "description" varchar(500) null, "elo" int not null default 1500, "gym_complete" boolean not null default false, "secret_hash" varchar(64) not null, "secret_sealed" text not null, "created_at" timestamptz(6) not null);`,
    );
    this.addSql(`create index "agents_owner_id_index" on "agents" ("owner_id");`);

    this.addSql(
      `alter table "api_keys" add constraint "api_keys_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "agents" add constraint "agents_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "api_keys" drop constraint "api_keys_user_id_foreign";`);

    this.addSql(`alter table "agents" drop constraint "agents_owner_id_foreign";`);

    this.addSql(`drop table if exists "users" cascade;`);

    this.addSql(`drop table if exists "api_keys" cascade;`);

    this.addSql(`drop table if exists "agents" cascade;`);
  }
}
