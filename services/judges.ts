/**
 * What operators do to judges (`arena judges`): vouch for them, so their votes count from the next
 * refresh (the seed of a new arena); void a judge's or a registration cluster's votes, which leave
 * the boards at the next refresh and have their Elo changes taken back; and decide a hold on the
 * rule-established judges' votes on one agent (release or void).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ArenaError } from '../domain/errors';
import { voidVotesOf } from '../infra/db/repositories/battle.repository';
import { markJudgesVoided, trustJudges } from '../infra/db/repositories/judge-standing.repository';
import { decideHold, type HoldDecided } from '../infra/db/repositories/vote-hold.repository';
import type { HoldDecision } from '../domain/judges';
import { changesToReverse, correctRatings } from '../infra/db/repositories/rating.repository';
import { accountsNamed } from '../infra/db/repositories/user.repository';

/** The accounts the names stand for; a name that stands for none is an error naming it, and nothing changes. */
async function accountsOf(
  em: EntityManager,
  names: readonly string[],
): Promise<Array<{ id: number; username: string }>> {
  const found: Array<{ id: number; username: string }> = [];
  const unknown: string[] = [];
  for (const name of names) {
    const accounts = await accountsNamed(em, name);
    if (accounts.length === 0) unknown.push(name);
    found.push(...accounts);
  }
  if (unknown.length > 0)
    throw new ArenaError('not_found', `no account named ${unknown.join(', ')} (a username, or cluster:<id>)`);
  return found;
}

/** Vouches for judges by username (or `cluster:<id>`): returns the accounts trusted. */
export async function trustJudgesNamed(em: EntityManager, names: readonly string[]): Promise<string[]> {
  const accounts = await accountsOf(em, names);
  await trustJudges(
    em,
    accounts.map((a) => a.id),
  );
  return accounts.map((a) => a.username);
}

export interface VoidResult {
  judges: string[];
  votes: number;
  /** Elo changes taken back (one per agent per vote that moved one). */
  reversed: number;
}

/**
 * Voids every vote of the named judges (a username, or `cluster:<id>`), for good, in one
 * transaction: the votes leave the boards and the export at the next refresh, their later votes
 * too, and each Elo change they made is taken back as a `void` entry in the agent's rating history.
 */
export async function voidJudgesNamed(
  em: EntityManager,
  names: readonly string[],
  reason: string,
): Promise<VoidResult> {
  return em.fork().transactional(async (tx) => {
    const accounts = await accountsOf(tx, names);
    const judgeIds = accounts.map((a) => a.id);
    await markJudgesVoided(tx, judgeIds, reason);
    const battles = await voidVotesOf(tx, judgeIds);
    const changes = await changesToReverse(tx, battles);
    await correctRatings(tx, changes, 'void');
    return { judges: accounts.map((a) => a.username), votes: battles.length, reversed: changes.length };
  });
}

/**
 * An operator decides a hold (`arena judges release|void-hold <hold id>`), in one transaction:
 * released votes count from the next refresh, their Elo changes given back now; voided ones never
 * count. A hold that does not exist, or was decided before, is an error naming it, and nothing changes.
 */
export async function decideHoldNumbered(
  em: EntityManager,
  holdId: number,
  decision: HoldDecision,
  reason: string,
): Promise<HoldDecided> {
  const done = await em.fork().transactional((tx) => decideHold(tx, holdId, decision, reason));
  if (!done) throw new ArenaError('not_found', `no undecided hold ${holdId} (see arena judges)`);
  return done;
}
