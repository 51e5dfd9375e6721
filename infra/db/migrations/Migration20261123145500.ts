import { Migration } from '@mikro-orm/migrations';

/** A provisional agent (fewer votes than the arena's minimum) is on the leaderboard without a rank. */
export class Migration20261123145500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "leaderboard_entries" alter column "rank" drop not null;`);
  }

  override async down(): Promise<void> {
    // The cache is rewritten by the next refresh, so dropping the unranked rows loses nothing.
    this.addSql(`delete from "leaderboard_entries" where "rank" is null;`);
    this.addSql(`alter table "leaderboard_entries" alter column "rank" set not null;`);
  }
}
