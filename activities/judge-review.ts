/**
 * The refresh's review of the judges: which votes count on the boards. A vote counts when its judge
 * was established when it was cast (by an operator's trust, or by the rule), it is on a pool pair,
 * and nothing since left it out: a flag (an outlier against the other judges, or votes concentrated
 * on one agent by a judge, the accounts registered with it, or its address), or a hold on the votes
 * the rule-established judges together cast on one agent. Everything is measured against the
 * operator's trusted judges, never against judges the rule established; an arena with no trusted
 * judge counts no vote.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  COHORT_MARGIN,
  CONTRARY_ALPHA,
  CONTRARY_MIN_VOTES,
  countsOnBoards,
  type EstablishingRules,
} from '../domain/judges';
import { findConcentratedVotes, type ConcentrationFlag, type GroupedVote } from '../domain/ratings/concentrated-votes';
import { findOutlierJudges } from '../domain/ratings/outlier-judges';
import type { UncountedReason } from '../domain/ratings/vote-flags';
import { castVotes, type CastVote } from '../infra/db/repositories/battle.repository';
import { arenaHasTrustedJudge, establishJudges } from '../infra/db/repositories/judge-standing.repository';
import type { NewVoteFlag } from '../infra/db/repositories/leaderboard.repository';
import { openHolds, type NewHold } from '../infra/db/repositories/vote-hold.repository';

export interface JudgeReview {
  flags: NewVoteFlag[];
  /** Holds to make, and the cohort's votes to put under each agent's hold (made now or open). */
  holds: NewHold[];
  toHold: Map<number, number[]>;
  /** Every vote cast that the boards leave out, and why (a published one among them is listed in `uncounted_votes`). */
  uncounted: Map<number, UncountedReason>;
  /** Judges some of whose votes a flag leaves out. */
  flaggedJudges: number;
  /** Whether the arena has a trusted judge: without one no vote counts. */
  hasReference: boolean;
}

/** The arena's own sentence for a concentration flag: what the group did, in numbers. */
function concentrationReason(flag: ConcentrationFlag, accounts: number): string {
  const who =
    flag.group.kind === 'judge'
      ? 'this judge'
      : flag.group.kind === 'cluster'
        ? `${accounts} accounts registered together`
        : flag.group.kind === 'address'
          ? `${accounts} accounts voting from this address`
          : `the ${accounts} judges established by the rule`;
  const score = `${flag.observed.toFixed(1)} of ${flag.votes}`;
  return (
    `${who} voted ${flag.direction} agent ${flag.agentId} far beyond what the trusted judges' votes predict: ` +
    `it scored ${score} in their votes, where ${flag.expected.toFixed(1)} was expected (z = ${flag.z.toFixed(1)})`
  );
}

const grouped = (v: CastVote, cohort = false): GroupedVote => ({
  judgeId: v.judge_id,
  cluster: v.cluster,
  network: v.vote_network,
  cohort,
  a: v.agent_a_id,
  b: v.agent_b_id,
  outcome: v.winner,
});

/** A vote of the rule-established cohort: cast as established (not trusted, then or now), and not released by an operator. */
const inCohort = (v: CastVote) => v.judged_as === 'established' && !v.trusted && v.hold_decision !== 'released';

/**
 * Per judge in probation, the agents on which its votes go against the trusted judges' fit beyond
 * chance (`CONTRARY_MIN_VOTES` votes on the agent, 1% over the agents it is tested on).
 */
function contraryAgents(votes: readonly CastVote[], reference: readonly GroupedVote[]): Map<number, number> {
  const probation = votes
    .filter((v) => !v.established && !v.trusted)
    // A group of one judge each: its cluster is its own, its address unknown.
    .map((v) => ({ ...grouped(v), cluster: -v.judge_id, network: null }));
  const report = findConcentratedVotes(probation, reference, {
    minVotes: CONTRARY_MIN_VOTES,
    alpha: CONTRARY_ALPHA,
    family: 'group',
  });
  const contrary = new Map<number, number>();
  for (const flag of report.flags)
    if (flag.group.kind === 'judge') contrary.set(flag.group.judgeId, (contrary.get(flag.group.judgeId) ?? 0) + 1);
  return contrary;
}

/**
 * Flags outliers and concentrated votes over every pool vote cast (never a voided one), holds the
 * cohort's votes on an agent they lean on, establishes the judges in probation who earned it (not
 * those flagged now), and returns the flags and holds with every vote the boards must leave out.
 */
export async function reviewJudges(em: EntityManager, rules: EstablishingRules): Promise<JudgeReview> {
  const votes = await castVotes(em);
  const pool = votes.filter((v) => !v.live);
  // Outliers: a judge against everyone's verdicts; a trusted judge against the other trusted judges'
  // only. An outlier is no reference, and were every judge's verdicts the consensus, accounts that
  // outnumber the trusted judges on an agent's pairs could make them outliers and drop the reference.
  const asJudged = (v: CastVote) => ({ judgeId: v.judge_id, a: v.agent_a_id, b: v.agent_b_id, outcome: v.winner });
  const trustedPool = pool.filter((v) => v.trusted);
  const trustedJudges = new Set(trustedPool.map((v) => v.judge_id));
  const outliers = [
    ...findOutlierJudges(pool.map(asJudged)).filter((r) => r.flagged && !trustedJudges.has(r.judgeId)),
    ...findOutlierJudges(trustedPool.map(asJudged)).filter((r) => r.flagged),
  ];
  const outlying = new Set(outliers.map((r) => r.judgeId));
  const reference = trustedPool.filter((v) => !outlying.has(v.judge_id)).map((v) => grouped(v));
  const tested = pool.filter((v) => !v.trusted);
  // The cohort is a family of its own: its few cells (one per agent) are not diluted by every judge's.
  const concentration = findConcentratedVotes(
    tested.map((v) => grouped(v, inCohort(v))),
    reference,
    { margins: { cohort: COHORT_MARGIN }, ownFamilies: ['cohort'] },
  );

  const judgesOf = (pick: (v: CastVote) => boolean) => new Set(tested.filter(pick).map((v) => v.judge_id));
  const flaggedJudges = new Set<number>(outliers.map((r) => r.judgeId));
  const flaggedNetworks = new Set<string>();
  const flags: NewVoteFlag[] = outliers.map((r) => ({
    kind: 'outlier',
    judgeId: r.judgeId,
    cluster: null,
    network: null,
    agentId: null,
    direction: null,
    votes: r.votes,
    pValue: r.pValue,
    reason: "verdicts contradict the other judges' on the same pairs far beyond chance",
  }));
  const holds: NewHold[] = [];
  for (const flag of concentration.flags) {
    const { group } = flag;
    if (group.kind === 'cohort') {
      if (holds.some((h) => h.agentId === flag.agentId)) continue;
      const { agentId, direction, votes: count, observed, expected, pValue } = flag;
      const reason = concentrationReason(flag, judgesOf(inCohort).size);
      holds.push({ agentId, direction, votes: count, observed, expected, pValue, reason });
      continue;
    }
    const members =
      group.kind === 'judge'
        ? new Set([group.judgeId])
        : group.kind === 'cluster'
          ? judgesOf((v) => v.cluster === group.cluster)
          : judgesOf((v) => v.vote_network === group.network);
    if (group.kind === 'address') flaggedNetworks.add(group.network);
    else for (const judgeId of members) flaggedJudges.add(judgeId);
    flags.push({
      kind: group.kind,
      judgeId: group.kind === 'judge' ? group.judgeId : null,
      cluster: group.kind === 'cluster' ? group.cluster : null,
      network: group.kind === 'address' ? group.network : null,
      agentId: flag.agentId,
      direction: flag.direction,
      votes: flag.votes,
      pValue: flag.pValue,
      reason: concentrationReason(flag, members.size),
    });
  }

  // The cohort's votes on every agent under a hold, open or made now, that no hold has yet.
  const heldAgents = new Set([...(await openHolds(em)).keys(), ...holds.map((h) => h.agentId)]);
  const toHold = new Map<number, number[]>();
  for (const v of tested) {
    if (!inCohort(v) || v.hold_id !== null) continue;
    const agentId = [v.agent_a_id, v.agent_b_id].find((id) => heldAgents.has(id));
    if (agentId !== undefined) toHold.set(agentId, [...(toHold.get(agentId) ?? []), v.battle_id]);
  }
  const holding = new Set([...toHold.values()].flat());

  const notNow = new Set([
    ...flaggedJudges,
    ...judgesOf((v) => v.vote_network !== null && flaggedNetworks.has(v.vote_network)),
  ]);
  await establishJudges(em, rules, [...notNow], contraryAgents(pool, reference));
  const hasReference = await arenaHasTrustedJudge(em);
  const uncounted = new Map<number, UncountedReason>();
  for (const v of votes) {
    const reason: UncountedReason | null = v.live
      ? 'live'
      : !hasReference
        ? 'no-reference'
        : !countsOnBoards(v.judged_as)
          ? 'probation'
          : flaggedJudges.has(v.judge_id) || (v.vote_network !== null && flaggedNetworks.has(v.vote_network))
            ? 'flagged'
            : (v.hold_id !== null && v.hold_decision === null) || holding.has(v.battle_id)
              ? 'held'
              : null;
    if (reason) uncounted.set(v.battle_id, reason);
  }
  return { flags, holds, toHold, uncounted, flaggedJudges: notNow.size, hasReference };
}
