import { Migration } from '@mikro-orm/migrations';

/**
 * API keys keep their first characters, so an account's list can tell them apart. Keys made
 * before this keep none: only their hash was ever stored.
 */
export class Migration20261123121000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "api_keys" add column "key_prefix" varchar(16) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "api_keys" drop column "key_prefix";`);
  }
}
