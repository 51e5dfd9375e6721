import { Migration } from '@mikro-orm/migrations';

/**
 * A2A agents: the card URL the owner gave, and the card as the last ping read it (the deliveries
 * call the JSON-RPC interface it names, without reading it again).
 */
export class Migration20261128060000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "agents" add column "agent_card_url" text null, add column "a2a_card" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "agents" drop column "agent_card_url", drop column "a2a_card";`);
  }
}
