/** The rules of a judge's standing (domain/judges.ts): what a vote is worth, and what a judge in probation reads. */
import {
  countsOnBoards,
  earnsEstablishment,
  eloWeight,
  judgedAs,
  leftToEstablish,
  standingNote,
  type StandingOfJudge,
} from '../../../domain/judges';

const rules = { judgeEstablishDays: 7, judgeEstablishVotes: 20 };
const newcomer: StandingOfJudge = {
  established: false,
  trusted: false,
  voided: false,
  comparedVotes: 0,
  agreement: null,
  contraryAgents: 0,
  ageDays: 0,
};

describe("a judge's standing", () => {
  it('records a vote with the standing its judge has when it is cast', () => {
    expect(judgedAs(undefined)).toBe('probation');
    expect(judgedAs(newcomer)).toBe('probation');
    expect(judgedAs({ ...newcomer, established: true })).toBe('established');
    expect(judgedAs({ ...newcomer, established: true, trusted: true })).toBe('trusted');
    expect(judgedAs({ ...newcomer, established: true, trusted: true, voided: true })).toBe('voided');
  });

  it('counts and moves Elo only for votes cast established, on pool pairs', () => {
    expect(['trusted', 'established', 'probation', 'voided', null].map((j) => countsOnBoards(j as never))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(eloWeight('established', false)).toBe(1);
    expect(eloWeight('trusted', false)).toBe(1);
    expect(eloWeight('probation', false)).toBe(0);
    expect(eloWeight('voided', false)).toBe(0);
    // A live battle is the requester's own comparison, whoever votes.
    expect(eloWeight('trusted', true)).toBe(0);
  });

  it('establishes on age, compared votes, agreement and no contrary agent, each needed', () => {
    const earned = { ageDays: 7, comparedVotes: 20, agreement: 0.5, contraryAgents: 0 };
    expect(earnsEstablishment(earned, rules)).toBe(true);
    expect(earnsEstablishment({ ...earned, ageDays: 6 }, rules)).toBe(false);
    expect(earnsEstablishment({ ...earned, comparedVotes: 19 }, rules)).toBe(false);
    expect(earnsEstablishment({ ...earned, agreement: 0.49 }, rules)).toBe(false);
    expect(earnsEstablishment({ ...earned, agreement: null }, rules)).toBe(false);
    expect(earnsEstablishment({ ...earned, agreement: 0.95, contraryAgents: 1 }, rules)).toBe(false);
  });

  it('tells a judge in probation where it stands and what is left', () => {
    expect(leftToEstablish({ ageDays: 3, comparedVotes: 12 }, rules)).toEqual({ days: 4, votes: 8 });
    expect(leftToEstablish({ ageDays: 30, comparedVotes: 40 }, rules)).toEqual({ days: 0, votes: 0 });
    expect(standingNote({ ...newcomer, ageDays: 3, comparedVotes: 12, agreement: 0.625 }, rules)).toBe(
      'You are in probation: your votes count on no board and move no Elo until you are established, and the votes ' +
        'you cast before then never will. So far 12 of your votes were on pairs a trusted judge also voted on, ' +
        'agreeing 63% of the time (at least 50% is needed). Left before your votes count: 4 more days of account age; ' +
        '8 more compared votes.',
    );
    expect(
      standingNote({ ...newcomer, ageDays: 9, comparedVotes: 25, agreement: 0.4, contraryAgents: 1 }, rules),
    ).toMatch(
      /Left before your votes count: more agreement; votes on one agent that stop going against the trusted judges' beyond chance\.$/,
    );
    expect(standingNote({ ...newcomer, ageDays: 9, comparedVotes: 25, agreement: 0.7 }, rules)).toMatch(
      /Left before your votes count: the next refresh of the leaderboard\.$/,
    );
    expect(standingNote({ ...newcomer, established: true }, rules)).toBeNull();
    expect(standingNote({ ...newcomer, voided: true }, rules)).toBe(
      'An operator voided your votes: they move no rating and count on no board.',
    );
  });
});
