/**
 * `arena judges …`: operators see every judge's standing, what the last refresh flagged and held,
 * vouch for judges (the seed of a new arena), void the votes of a judge or a registration cluster,
 * and release or void a hold.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ArenaError } from '../domain/errors';
import { judgeListings } from '../infra/db/repositories/judge-standing.repository';
import { voteFlags } from '../infra/db/repositories/leaderboard.repository';
import { holdListings } from '../infra/db/repositories/vote-hold.repository';
import { decideHoldNumbered, trustJudgesNamed, voidJudgesNamed } from '../services/judges';
import type { HoldDecision } from '../domain/judges';
import { CommandError, type Print } from './command';

function standing(j: { trusted: boolean; established: boolean; voided: boolean }): string {
  if (j.voided) return 'voided';
  if (j.trusted) return 'trusted';
  return j.established ? 'established' : 'probation';
}

/** Every judge's standing, then the flags of the last refresh with their reasons. */
export async function listJudges(em: EntityManager, print: Print): Promise<void> {
  const judges = await judgeListings(em);
  print(
    [
      'user_id',
      'username',
      'standing',
      'cluster',
      'address',
      'registered',
      'votes',
      'counted',
      'uncounted',
      'agreement',
    ].join('\t'),
  );
  for (const j of judges) {
    print(
      [
        j.id,
        j.username,
        standing(j),
        j.cluster_size > 1 ? `cluster:${j.cluster} (${j.cluster_size} accounts)` : `cluster:${j.cluster}`,
        j.network ?? '-',
        new Date(j.created_ms).toISOString().slice(0, 10),
        j.votes,
        j.counted,
        j.uncounted,
        j.agreement === null ? '-' : `${Math.round(j.agreement * 100)}% of ${j.compared_votes}`,
      ].join('\t'),
    );
  }
  const flags = await voteFlags(em);
  print(`${judges.length} judge(s); ${flags.length} flag(s) from the last leaderboard refresh:`);
  for (const f of flags) {
    const who =
      f.kind === 'cluster' ? `cluster:${f.cluster}` : f.kind === 'address' ? `address ${f.network}` : `${f.username}`;
    const agent = f.agent_id === null ? '' : ` on agent ${f.agent_id} ${f.agent_name ?? ''}`.trimEnd();
    print(`${f.kind}\t${who}${agent}\t${f.votes} votes\tp = ${f.p_value.toExponential(2)}\t${f.reason}`);
  }
  const holds = await holdListings(em);
  const open = holds.filter((h) => h.decision === null);
  print(
    `${open.length} hold(s) waiting for a decision (arena judges release <id> | void-hold <id> --reason …)` +
      (holds.length > open.length ? `, ${holds.length - open.length} decided:` : ':'),
  );
  for (const h of holds) {
    print(
      [
        `hold ${h.id}`,
        h.decision ?? 'held',
        `agent ${h.agent_id} ${h.agent_name}`,
        `${h.held_votes} votes held`,
        `since ${new Date(h.held_ms).toISOString().slice(0, 16).replace('T', ' ')}`,
        `p = ${h.p_value.toExponential(2)}`,
        h.reason,
      ].join('\t'),
    );
  }
  if (!judges.some((j) => j.trusted && !j.voided))
    print('No judge is trusted, so no vote counts: vouch for judges with `arena judges trust <username>`.');
}

/** Releases or voids a hold's votes. */
export async function decideHoldCommand(
  em: EntityManager,
  holdId: number,
  decision: HoldDecision,
  reason: string,
  print: Print,
): Promise<void> {
  const done = await asCommand(decideHoldNumbered(em, holdId, decision, reason));
  print(
    decision === 'released'
      ? `released hold ${holdId}: ${done.votes} vote(s) count from the next refresh; ${done.corrected} Elo change(s) given back now`
      : `voided hold ${holdId}: ${done.votes} vote(s) never count; their Elo changes stay taken back`,
  );
}

/** Vouches for judges: their votes count from the next refresh. */
export async function trustJudgesCommand(em: EntityManager, names: readonly string[], print: Print): Promise<void> {
  const trusted = await asCommand(trustJudgesNamed(em, names));
  print(`trusted ${trusted.join(', ')}: their votes count on the boards from the next refresh`);
}

/** Voids judges' votes: off the boards at the next refresh, their Elo changes taken back now. */
export async function voidJudgesCommand(
  em: EntityManager,
  names: readonly string[],
  reason: string,
  print: Print,
): Promise<void> {
  const done = await asCommand(voidJudgesNamed(em, names, reason));
  print(
    `voided ${done.votes} vote(s) of ${done.judges.join(', ')}: ${done.reversed} Elo change(s) taken back now; ` +
      'the boards and the export leave them out from the next refresh',
  );
}

async function asCommand<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ArenaError) throw new CommandError(err.message);
    throw err;
  }
}
