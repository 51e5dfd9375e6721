/**
 * The refresh's review of the judges: which votes count on the boards. A vote counts when its judge
 * is established (by an operator or by age and agreement) and was not flagged: as an outlier
 * against the other judges, or for votes concentrated on one agent, alone, with the accounts
 * registered together with it, or from its address.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EstablishingRules } from '../domain/judges';
import { findConcentratedVotes, type ConcentrationFlag } from '../domain/ratings/concentrated-votes';
import { findOutlierJudges } from '../domain/ratings/outlier-judges';
import type { UncountedReason } from '../domain/ratings/vote-flags';
import { castVotes } from '../infra/db/repositories/battle.repository';
import { establishJudges } from '../infra/db/repositories/judge-standing.repository';
import type { NewVoteFlag } from '../infra/db/repositories/leaderboard.repository';

export interface JudgeReview {
  flags: NewVoteFlag[];
  /** Every vote cast that the boards leave out, and why (a published one among them is listed in `uncounted_votes`). */
  uncounted: Map<number, UncountedReason>;
  /** Judges some of whose votes a flag leaves out. */
  flaggedJudges: number;
}

/** The arena's own sentence for a concentration flag: what the group did, in numbers. */
function concentrationReason(flag: ConcentrationFlag, accounts: number): string {
  const who =
    flag.group.kind === 'judge'
      ? 'this judge'
      : flag.group.kind === 'cluster'
        ? `${accounts} accounts registered together`
        : `${accounts} accounts voting from this address`;
  const score = `${flag.observed} of ${flag.votes}`;
  return (
    `${who} voted ${flag.direction} agent ${flag.agentId} far beyond what the established judges' votes predict: ` +
    `it scored ${score} in their votes, where ${flag.expected.toFixed(1)} was expected (z = ${flag.z.toFixed(1)})`
  );
}

/**
 * Flags outliers and concentrated votes over every vote cast (published or not, never a voided one),
 * establishes the judges who earned it (not those flagged now), and returns the flags with every
 * vote the boards must leave out.
 */
export async function reviewJudges(em: EntityManager, rules: EstablishingRules): Promise<JudgeReview> {
  const votes = await castVotes(em);
  const outliers = findOutlierJudges(
    votes.map((v) => ({ judgeId: v.judge_id, a: v.agent_a_id, b: v.agent_b_id, outcome: v.winner })),
  ).filter((r) => r.flagged);
  const concentration = findConcentratedVotes(
    votes.map((v) => ({
      judgeId: v.judge_id,
      cluster: v.cluster,
      network: v.vote_network,
      a: v.agent_a_id,
      b: v.agent_b_id,
      outcome: v.winner,
    })),
    votes.filter((v) => v.established).map((v) => ({ a: v.agent_a_id, b: v.agent_b_id, outcome: v.winner })),
  );

  const judgesOf = (pick: (v: (typeof votes)[number]) => boolean) => new Set(votes.filter(pick).map((v) => v.judge_id));
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
  for (const flag of concentration.flags) {
    const { group } = flag;
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

  const notNow = new Set([
    ...flaggedJudges,
    ...judgesOf((v) => v.vote_network !== null && flaggedNetworks.has(v.vote_network)),
  ]);
  const established = new Set([
    ...votes.filter((v) => v.established).map((v) => v.judge_id),
    ...(await establishJudges(em, rules, [...notNow])),
  ]);
  const uncounted = new Map<number, UncountedReason>();
  for (const v of votes) {
    if (flaggedJudges.has(v.judge_id) || (v.vote_network !== null && flaggedNetworks.has(v.vote_network)))
      uncounted.set(v.battle_id, 'flagged');
    else if (!established.has(v.judge_id)) uncounted.set(v.battle_id, 'new-judge');
  }
  return { flags, uncounted, flaggedJudges: notNow.size };
}
