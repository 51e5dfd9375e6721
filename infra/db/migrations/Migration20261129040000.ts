import { Migration } from '@mikro-orm/migrations';

/**
 * Marks the agents whose owner name was given on purpose: any name but an old default, the email's
 * part before the @ or `agent-<user id>` (the default of an agent made before its account had an
 * email, which it kept when one was set).
 */
export const OWNER_HANDLES_OWN = `update agents a set owner_handle_own = true from users u
  where u.id = a.owner_id
    and a.owner_handle <> 'agent-' || u.id
    and a.owner_handle is distinct from nullif(trim(split_part(u.email, '@', 1)), '')`;

/** Every other agent shows its account's public name: the display name, else the username. */
export const OWNER_HANDLES_FOLLOW = `update agents a set owner_handle = coalesce(nullif(trim(u.display_name), ''), u.username)
  from users u where u.id = a.owner_id and not a.owner_handle_own`;

/**
 * One owner name per account (docs/decisions.md, "One name per person"): an agent's owner name
 * follows its account's public name unless the agent has a name of its own (`owner_handle_own`).
 */
export class Migration20261129040000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "agents" add column "owner_handle_own" boolean not null default false;`);
    this.addSql(`${OWNER_HANDLES_OWN};`);
    this.addSql(`${OWNER_HANDLES_FOLLOW};`);
  }

  override async down(): Promise<void> {
    this
      .addSql(`update agents a set owner_handle = coalesce(nullif(trim(split_part(u.email, '@', 1)), ''), 'agent-' || u.id)
      from users u where u.id = a.owner_id and not a.owner_handle_own;`);
    this.addSql(`alter table "agents" drop column "owner_handle_own";`);
  }
}
