import { Migration } from '@mikro-orm/migrations';

/**
 * MCP steps follow their client (docs/decisions.md, "A newcomer's second hour"):
 * - coding_steps.client_ref: the MCP request id of the tool call that asked for a step, so a
 *   `notifications/cancelled` for it (a request of its own, to any API process) finds the step;
 * - coding_steps.started_at: when the worker began the step, so a call's progress tells time queued
 *   behind an earlier step from time running.
 */
export class Migration20261129050000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "coding_steps" add column "client_ref" varchar(100) null, add column "started_at" timestamptz(6) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "coding_steps" drop column "client_ref", drop column "started_at";`);
  }
}
