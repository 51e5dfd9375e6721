/**
 * What a judge's votes are worth. A vote counts on the boards, the export and Elo only if its judge
 * was established when it was cast: by an operator's trust, or by the rule (age, and agreement with
 * the operator's trusted judges on every agent it voted on enough). Votes cast in probation decide
 * establishment and nothing else; live-battle votes count nowhere; an operator can void a judge's
 * votes, and hold or release the votes of rule-established judges on one agent.
 */
import type { Verdict } from './arena';

/** The judge's standing when a vote was cast (`battles.judged_as`). */
export type JudgedAs = 'trusted' | 'established' | 'probation' | 'voided';

/** What an operator decided about a hold. */
export type HoldDecision = 'released' | 'voided';

/** The least agreement with trusted judges that establishes a judge: at least as often with them as against them. */
export const ESTABLISHING_AGREEMENT = 0.5;

/**
 * The per-agent test of establishment: a judge in probation with at least this many votes on one
 * agent is tested on it against the trusted judges' fit, and is not established while any agent's
 * test fails at 1% (Bonferroni over the agents it is tested on).
 */
export const CONTRARY_MIN_VOTES = 5;
export const CONTRARY_ALPHA = 0.01;

/**
 * How far the rule-established cohort may lean for or against one agent, as a share of its votes
 * with that agent, before the excess is tested: honest judges who like one agent a little more than
 * the trusted judges do are no purchase, and are never held, however many votes they cast.
 */
export const COHORT_MARGIN = 0.1;

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
  /** Votes compared with trusted judges' votes on the same pairs, at the last refresh. */
  comparedVotes: number;
  agreement: number | null;
  /** Agents on which its votes went against the trusted judges' beyond chance, at the last refresh. */
  contraryAgents: number;
  /** Whole days since the account was made. */
  ageDays: number;
}

/** The standing a vote cast now is recorded with. */
export function judgedAs(standing: Pick<StandingOfJudge, 'trusted' | 'established' | 'voided'> | undefined): JudgedAs {
  if (!standing) return 'probation';
  if (standing.voided) return 'voided';
  if (standing.trusted) return 'trusted';
  return standing.established ? 'established' : 'probation';
}

/** Whether a vote cast with this standing counts on the boards (unless flagged, held or voided later). */
export function countsOnBoards(judged: JudgedAs | null): boolean {
  return judged === 'trusted' || judged === 'established';
}

/** The share of Elo's K a vote moves: all of it from an established judge on a pool pair, none otherwise (K = 0). */
export function eloWeight(judged: JudgedAs, live: boolean): number {
  return !live && countsOnBoards(judged) ? 1 : 0;
}

/**
 * Whether a judge in probation has earned establishment: the account is old enough, enough of its
 * votes were on pairs a trusted judge also voted on, they agreed at least half the time, and on no
 * agent did they go against the trusted judges beyond chance.
 */
export function earnsEstablishment(
  judge: { ageDays: number; comparedVotes: number; agreement: number | null; contraryAgents: number },
  rules: EstablishingRules,
): boolean {
  return (
    judge.ageDays >= rules.judgeEstablishDays &&
    judge.comparedVotes >= rules.judgeEstablishVotes &&
    (judge.agreement ?? 0) >= ESTABLISHING_AGREEMENT &&
    judge.contraryAgents === 0
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

/** What is left before a judge in probation is established: days of age and compared votes still to come. */
export function leftToEstablish(
  standing: Pick<StandingOfJudge, 'ageDays' | 'comparedVotes'>,
  rules: EstablishingRules,
): { days: number; votes: number } {
  return {
    days: Math.max(0, rules.judgeEstablishDays - standing.ageDays),
    votes: Math.max(0, rules.judgeEstablishVotes - standing.comparedVotes),
  };
}

/** What the judge reads beside a vote and on /judge about whether its votes count: null when they do. */
export function standingNote(standing: StandingOfJudge, rules: EstablishingRules): string | null {
  if (standing.voided) return 'An operator voided your votes: they move no rating and count on no board.';
  if (standing.established) return null;
  const left = leftToEstablish(standing, rules);
  const agreement =
    standing.agreement === null
      ? 'no agreement yet'
      : `agreeing ${Math.round(standing.agreement * 100)}% of the time (at least 50% is needed)`;
  const todo = [
    ...(left.days > 0 ? [`${left.days} more day${left.days === 1 ? '' : 's'} of account age`] : []),
    ...(left.votes > 0 ? [`${left.votes} more compared vote${left.votes === 1 ? '' : 's'}`] : []),
    ...(standing.agreement !== null && standing.agreement < ESTABLISHING_AGREEMENT ? ['more agreement'] : []),
    ...(standing.contraryAgents > 0
      ? [
          `votes on ${standing.contraryAgents === 1 ? 'one agent' : `${standing.contraryAgents} agents`} that stop going against the trusted judges' beyond chance`,
        ]
      : []),
  ];
  return (
    `You are in probation: your votes count on no board and move no Elo until you are established, and the votes ` +
    `you cast before then never will. So far ${standing.comparedVotes} of your votes were on pairs a trusted judge ` +
    `also voted on, ${agreement}. Left before your votes count: ${todo.length > 0 ? todo.join('; ') : 'the next refresh of the leaderboard'}.`
  );
}
