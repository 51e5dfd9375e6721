/**
 * The owner of `vote_holds` and of `battles.hold_id`: the refresh holds the rule-established cohort's
 * votes on an agent (their Elo changes taken back), and an operator releases them (given back, and
 * they count) or voids them.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { HoldDecision } from '../../../domain/judges';
import { changesToGiveBack, changesToReverse, correctRatings } from './rating.repository';
import { run } from './sql';

/** A hold the refresh makes: the cohort's test on one agent, in numbers, and the arena's sentence. */
export interface NewHold {
  agentId: number;
  direction: 'for' | 'against';
  votes: number;
  observed: number;
  expected: number;
  pValue: number;
  reason: string;
}

/** The holds no operator has decided yet, by agent. */
export async function openHolds(em: EntityManager): Promise<Map<number, number>> {
  const rows = await run<{ id: number; agent_id: number }>(
    em,
    `select id, agent_id from vote_holds where decision is null order by id`,
  );
  return new Map(rows.map((r) => [r.agent_id, r.id] as const));
}

/** The undecided hold on either of these agents, if any: a cohort vote on their pair is held as it is cast. */
export async function openHoldOn(em: EntityManager, agentIds: readonly number[]): Promise<number | undefined> {
  const [row] = await run<{ id: number }>(
    em,
    `select id from vote_holds where decision is null and agent_id = any(?::int[]) order by id limit 1`,
    [`{${agentIds.join(',')}}`],
  );
  return row?.id;
}

/**
 * In the caller's transaction: makes the new holds (one per agent with none open), puts each listed
 * vote under its agent's open hold (a vote already under one, or void, stays as it is), and takes
 * back the Elo changes of the votes it put under one as `hold` rows. Returns the votes now held.
 */
export async function holdVotes(
  em: EntityManager,
  holds: readonly NewHold[],
  votesByAgent: ReadonlyMap<number, readonly number[]>,
): Promise<number[]> {
  const open = await openHolds(em);
  for (const hold of holds) {
    if (open.has(hold.agentId)) continue;
    const [row] = await run<{ id: number }>(
      em,
      `insert into vote_holds (agent_id, direction, votes, observed, expected, p_value, reason, held_at)
       values (?, ?, ?, ?, ?, ?, ?, now()) returning id`,
      [hold.agentId, hold.direction, hold.votes, hold.observed, hold.expected, hold.pValue, hold.reason],
    );
    open.set(hold.agentId, row!.id);
  }
  const held: number[] = [];
  for (const [agentId, battleIds] of votesByAgent) {
    const holdId = open.get(agentId);
    if (holdId === undefined || battleIds.length === 0) continue;
    const rows = await run<{ id: number }>(
      em,
      `update battles set hold_id = ? where id = any(?::int[]) and hold_id is null and voided_at is null returning id`,
      [holdId, `{${battleIds.join(',')}}`],
    );
    held.push(...rows.map((r) => r.id));
  }
  await correctRatings(em, await changesToReverse(em, held), 'hold');
  return held;
}

/** A hold as `arena judges` lists it. */
export interface HoldListing {
  id: number;
  agent_id: number;
  agent_name: string;
  direction: 'for' | 'against';
  votes: number;
  observed: number;
  expected: number;
  p_value: number;
  reason: string;
  held_ms: number;
  decision: HoldDecision | null;
  /** Votes under it now. */
  held_votes: number;
}

/** Every hold, the undecided first, newest first within each. */
export function holdListings(em: EntityManager): Promise<HoldListing[]> {
  return run<HoldListing>(
    em,
    `select h.id, h.agent_id, a.name as agent_name, h.direction, h.votes, h.observed, h.expected, h.p_value, h.reason,
       (extract(epoch from h.held_at) * 1000)::float8 as held_ms, h.decision,
       (select count(*)::int from battles b where b.hold_id = h.id) as held_votes
     from vote_holds h join agents a on a.id = h.agent_id
     order by h.decision is not null, h.id desc`,
  );
}

/** What an operator's decision on a hold did. */
export interface HoldDecided {
  holdId: number;
  votes: number;
  /** Elo changes given back (release) or none (void: the hold had taken them back already). */
  corrected: number;
}

/**
 * An operator's decision, in the caller's transaction: `released`, the votes count from the next
 * refresh and their Elo changes are given back as `release` rows (the cohort test then leaves them
 * out: an operator vouched for them); `voided`, they are void for good (their changes stay taken
 * back). Undefined when there is no such hold undecided.
 */
export async function decideHold(
  em: EntityManager,
  holdId: number,
  decision: HoldDecision,
  reason: string,
): Promise<HoldDecided | undefined> {
  const decided = await run<{ id: number }>(
    em,
    `update vote_holds set decision = ?, decided_at = now(), decision_reason = ? where id = ? and decision is null returning id`,
    [decision, reason, holdId],
  );
  if (decided.length === 0) return undefined;
  const votes = await run<{ id: number }>(em, `select id from battles where hold_id = ? and voided_at is null`, [
    holdId,
  ]);
  const battleIds = votes.map((v) => v.id);
  if (decision === 'voided') {
    await run(em, `update battles set voided_at = now() where id = any(?::int[])`, [`{${battleIds.join(',')}}`]);
    return { holdId, votes: battleIds.length, corrected: 0 };
  }
  const changes = await changesToGiveBack(em, battleIds);
  await correctRatings(em, changes, 'release');
  return { holdId, votes: battleIds.length, corrected: changes.length };
}
