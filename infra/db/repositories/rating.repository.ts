/** The owner of `rating_changes`: the Elo moves votes made, written once per side of a vote and read for reveals and rating history. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RatingChangeKind } from '../../../domain/ratings/elo';
import { lockElos, setElo } from './agent.repository';
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

/** Which of these agents a vote has rated (a change in their rating history): the others have no tier yet. */
export async function ratedAgentIds(em: EntityManager, agentIds: readonly number[]): Promise<Set<number>> {
  if (agentIds.length === 0) return new Set();
  const rows = await run<{ agent_id: number }>(
    em,
    `select distinct agent_id from rating_changes where agent_id = any(?::int[])`,
    [`{${agentIds.join(',')}}`],
  );
  return new Set(rows.map((r) => r.agent_id));
}

/** A vote's change on one agent, to take back or give back. */
export interface ChangeToReverse {
  battle_id: number;
  agent_id: number;
  delta: number;
}

/** How many times a vote's change on an agent is in effect now: its vote, less a void or a hold, plus a release. */
const IN_EFFECT = `(select 1 - count(*) filter (where r.kind in ('void', 'hold')) + count(*) filter (where r.kind = 'release')
   from rating_changes r where r.battle_id = c.battle_id and r.agent_id = c.agent_id)`;

/** The changes these votes made that are in effect (none taken back, or given back since), oldest first. */
export function changesToReverse(em: EntityManager, battleIds: readonly number[]): Promise<ChangeToReverse[]> {
  return changesWhere(em, battleIds, `${IN_EFFECT} > 0`);
}

/** The changes these votes made that a hold took back and nothing gave back yet, oldest first. */
export function changesToGiveBack(em: EntityManager, battleIds: readonly number[]): Promise<ChangeToReverse[]> {
  return changesWhere(
    em,
    battleIds,
    `${IN_EFFECT} = 0 and not exists (select 1 from rating_changes v where v.battle_id = c.battle_id and v.kind = 'void')`,
  );
}

function changesWhere(em: EntityManager, battleIds: readonly number[], condition: string): Promise<ChangeToReverse[]> {
  if (battleIds.length === 0) return Promise.resolve([]);
  return run<ChangeToReverse>(
    em,
    `select c.battle_id, c.agent_id, c.after - c.before as delta from rating_changes c
     where c.battle_id = any(?::int[]) and c.kind = 'vote' and c.after <> c.before and ${condition}
     order by c.id`,
    [`{${battleIds.join(',')}}`],
  );
}

/**
 * Takes changes back (`void`, `hold`: the agent's current Elo minus the vote's change) or gives them
 * back (`release`: plus it), each as a public row of the agent's rating history, in the caller's
 * transaction; agents are locked in id order, as a vote locks them. Exact reversal of the change,
 * not a replay of history: Elo is path-dependent, and a replay would rewrite every other vote's row.
 */
export async function correctRatings(
  em: EntityManager,
  changes: readonly ChangeToReverse[],
  kind: Exclude<RatingChangeKind, 'vote'>,
): Promise<void> {
  if (changes.length === 0) return;
  const sign = kind === 'release' ? 1 : -1;
  const elo = new Map(
    (await lockElos(em, [...new Set(changes.map((c) => c.agent_id))])).map((a) => [a.id, a.elo] as const),
  );
  for (const change of changes) {
    const before = elo.get(change.agent_id)!;
    const after = before + sign * change.delta;
    await insertRatingChange(em, { agentId: change.agent_id, battleId: change.battle_id, before, after, kind });
    elo.set(change.agent_id, after);
  }
  for (const [agentId, rating] of elo) await setElo(em, agentId, rating);
}
