/** The owner of `rating_changes`: the Elo moves votes made, written once per side of a vote and read for reveals and rating history. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { run } from './sql';

export interface RatingChangeRow {
  agent_id: number;
  before: number;
  after: number;
}

/** The Elo changes a vote on this battle made (none before the vote). */
export function ratingChangesOf(em: EntityManager, battleId: number): Promise<RatingChangeRow[]> {
  return run<RatingChangeRow>(
    em,
    `select agent_id, before, after from rating_changes where battle_id = ? order by id`,
    [battleId],
  );
}

/** Records one side's Elo move for a vote, in the vote's transaction. */
export async function insertRatingChange(
  em: EntityManager,
  change: { agentId: number; battleId: number; before: number; after: number },
): Promise<void> {
  await run(
    em,
    `insert into rating_changes (agent_id, battle_id, before, after, created_at) values (?, ?, ?, ?, now())`,
    [change.agentId, change.battleId, change.before, change.after],
  );
}

export interface RatingHistoryRow {
  battle_id: number;
  before: number;
  after: number;
  created_ms: number;
}

export function ratingHistory(em: EntityManager, agentId: number): Promise<RatingHistoryRow[]> {
  return run<RatingHistoryRow>(
    em,
    `select battle_id, before, after, (extract(epoch from created_at) * 1000)::float8 as created_ms
     from rating_changes where agent_id = ? order by id`,
    [agentId],
  );
}
