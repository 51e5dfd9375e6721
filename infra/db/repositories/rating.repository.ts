/** The owner of `rating_changes`: the Elo moves votes made, written once per side of a vote and read for reveals and rating history. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RatingChangeKind } from '../../../domain/ratings/elo';
import { run } from './sql';

export interface RatingChangeRow {
  agent_id: number;
  before: number;
  after: number;
}

/** The Elo changes a vote on this battle made (none before the vote); its reversal, if voided, is not among them. */
export function ratingChangesOf(em: EntityManager, battleId: number): Promise<RatingChangeRow[]> {
  return run<RatingChangeRow>(
    em,
    `select agent_id, before, after from rating_changes where battle_id = ? and kind = 'vote' order by id`,
    [battleId],
  );
}

/** Records one side's Elo move for a vote (or, `void`, its reversal), in the caller's transaction. */
export async function insertRatingChange(
  em: EntityManager,
  change: { agentId: number; battleId: number; before: number; after: number; kind?: RatingChangeKind },
): Promise<void> {
  await run(
    em,
    `insert into rating_changes (agent_id, battle_id, before, after, kind, created_at) values (?, ?, ?, ?, ?, now())`,
    [change.agentId, change.battleId, change.before, change.after, change.kind ?? 'vote'],
  );
}

export interface RatingHistoryRow {
  battle_id: number;
  kind: RatingChangeKind;
  before: number;
  after: number;
  created_ms: number;
}

export function ratingHistory(em: EntityManager, agentId: number): Promise<RatingHistoryRow[]> {
  return run<RatingHistoryRow>(
    em,
    `select battle_id, kind, before, after, (extract(epoch from created_at) * 1000)::float8 as created_ms
     from rating_changes where agent_id = ? order by id`,
    [agentId],
  );
}

/** A voided vote's change on one agent, to take back: not yet reversed. */
export interface ChangeToReverse {
  battle_id: number;
  agent_id: number;
  delta: number;
}

/** The changes these votes made that no reversal has taken back yet, oldest first. */
export function changesToReverse(em: EntityManager, battleIds: readonly number[]): Promise<ChangeToReverse[]> {
  if (battleIds.length === 0) return Promise.resolve([]);
  return run<ChangeToReverse>(
    em,
    `select c.battle_id, c.agent_id, c.after - c.before as delta from rating_changes c
     where c.battle_id = any(?::int[]) and c.kind = 'vote'
       and not exists (select 1 from rating_changes r where r.battle_id = c.battle_id and r.agent_id = c.agent_id and r.kind = 'void')
     order by c.id`,
    [`{${battleIds.join(',')}}`],
  );
}
