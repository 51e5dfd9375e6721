/**
 * What operators do to judges (`arena judges`): vouch for them, so their votes count from the next
 * refresh (the seed of a new arena), and void a judge's or a registration cluster's votes, which
 * leave the boards at the next refresh and have their Elo changes taken back.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ArenaError } from '../domain/errors';
import { lockElos, setElo } from '../infra/db/repositories/agent.repository';
import { voidVotesOf } from '../infra/db/repositories/battle.repository';
import { markJudgesVoided, trustJudges } from '../infra/db/repositories/judge-standing.repository';
import { changesToReverse, insertRatingChange } from '../infra/db/repositories/rating.repository';
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
    const elo = new Map(
      (await lockElos(tx, [...new Set(changes.map((c) => c.agent_id))])).map((a) => [a.id, a.elo] as const),
    );
    for (const change of changes) {
      const before = elo.get(change.agent_id)!;
      const after = before - change.delta;
      await insertRatingChange(tx, {
        agentId: change.agent_id,
        battleId: change.battle_id,
        before,
        after,
        kind: 'void',
      });
      elo.set(change.agent_id, after);
    }
    for (const [agentId, rating] of elo) await setElo(tx, agentId, rating);
    return { judges: accounts.map((a) => a.username), votes: battles.length, reversed: changes.length };
  });
}
