/**
 * What a judge's votes are worth: a new account's move Elo a little and stay off the fitted boards
 * until the judge is established, by an operator's trust or by age and agreement with established
 * judges; an operator can void a judge's votes altogether.
 */
import type { Verdict } from './arena';

/** Of Elo's K, what a vote of a judge not yet established moves: an eighth (K = 4 instead of 32). */
export const NEW_JUDGE_ELO_WEIGHT = 1 / 8;

/** The least agreement with established judges that establishes a judge: at least as often with them as against them. */
export const ESTABLISHING_AGREEMENT = 0.5;

/** The rules of establishment an operator can tune (`ARENA_JUDGE_ESTABLISH_DAYS`, `ARENA_JUDGE_ESTABLISH_VOTES`). */
export interface EstablishingRules {
  judgeEstablishDays: number;
  judgeEstablishVotes: number;
}

/** A judge's standing as the vote and the website read it. */
export interface StandingOfJudge {
  established: boolean;
  trusted: boolean;
  voided: boolean;
  /** Votes compared with established judges' votes on the same pairs, at the last refresh. */
  comparedVotes: number;
  agreement: number | null;
  /** Whole days since the account was made. */
  ageDays: number;
}

/** The share of Elo's K a judge's vote moves. */
export function eloWeight(standing: Pick<StandingOfJudge, 'established' | 'voided'>): number {
  if (standing.voided) return 0;
  return standing.established ? 1 : NEW_JUDGE_ELO_WEIGHT;
}

/**
 * Whether a judge not yet established has earned it: the account is old enough, enough of its votes
 * were on pairs an established judge also voted on, and they agreed at least half the time.
 */
export function earnsEstablishment(
  judge: { ageDays: number; comparedVotes: number; agreement: number | null },
  rules: EstablishingRules,
): boolean {
  return (
    judge.ageDays >= rules.judgeEstablishDays &&
    judge.comparedVotes >= rules.judgeEstablishVotes &&
    (judge.agreement ?? 0) >= ESTABLISHING_AGREEMENT
  );
}

/**
 * How far two verdicts on one pair agree: 1 when they are the same, 0 when each picked the other
 * answer, a half when one picked an answer and the other neither (a tie or both bad). Verdicts are
 * read relative to the pair, not to the sides each judge was shown: `lowFirst` says whether side a
 * of that judge's battle was the pair's lower session.
 */
export function verdictAgreement(
  x: { winner: Verdict; lowFirst: boolean },
  y: { winner: Verdict; lowFirst: boolean },
): number {
  const vx = pairVerdict(x.winner, x.lowFirst);
  const vy = pairVerdict(y.winner, y.lowFirst);
  if (vx === vy) return 1;
  return vx === 0 || vy === 0 ? 0.5 : 0;
}

/** -1: the pair's lower session won; 1: the higher; 0: neither. */
export function pairVerdict(winner: Verdict, lowFirst: boolean): -1 | 0 | 1 {
  if (winner !== 'a' && winner !== 'b') return 0;
  return (winner === 'a') === lowFirst ? -1 : 1;
}

/** What the judge reads after a vote about whether it counts: null when it counts in full. */
export function standingNote(standing: StandingOfJudge, rules: EstablishingRules): string | null {
  if (standing.voided) return 'An operator voided your votes: they move no rating and count on no board.';
  if (standing.established) return null;
  const age =
    standing.ageDays >= rules.judgeEstablishDays
      ? `your account is ${rules.judgeEstablishDays === 0 ? 'old enough' : `over ${rules.judgeEstablishDays} days old`}`
      : `your account is ${standing.ageDays} of ${rules.judgeEstablishDays} days old`;
  const compared = `${standing.comparedVotes} of ${rules.judgeEstablishVotes} votes compared with established judges'`;
  const agreement =
    standing.agreement === null ? '' : `, agreeing ${Math.round(standing.agreement * 100)}% of the time`;
  return (
    `Your votes count on the leaderboard once your account is established: ${rules.judgeEstablishDays} days old, ` +
    `and ${rules.judgeEstablishVotes} votes on pairs established judges also voted on, agreeing with them at least ` +
    `half the time (so far ${age}; ${compared}${agreement}). Until then each vote moves Elo an eighth as much, ` +
    'and it is kept: it counts from the first refresh after you are established.'
  );
}
