import { chiSquareSurvivalEvenDf, findOutlierJudges, type JudgeVote } from '../../../domain/ratings/outlier-judges';
import { mulberry32 } from '../../../domain/ratings/random';
import { honestVerdict, randomPair } from './synthetic-votes';

const TRUTH = Array.from({ length: 15 }, (_, i) => 1100 + 60 * i);

/** 40 honest judges (ids 1..40) voting on random pairs as the true ratings predict. */
function honestVotes(seed: number, perJudge = 150): JudgeVote[] {
  const random = mulberry32(seed);
  const votes: JudgeVote[] = [];
  for (let judgeId = 1; judgeId <= 40; judgeId++) {
    for (let v = 0; v < perJudge; v++) {
      const [a, b] = randomPair(random, TRUTH.length);
      votes.push({ judgeId, a, b, outcome: honestVerdict(random, TRUTH[a - 1]!, TRUTH[b - 1]!) });
    }
  }
  return votes;
}

/** A judge who always picks the truly weaker agent. */
function contrarianVotes(judgeId: number, count: number, seed: number): JudgeVote[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, () => {
    const [a, b] = randomPair(random, TRUTH.length);
    return { judgeId, a, b, outcome: TRUTH[a - 1]! < TRUTH[b - 1]! ? 'a' : 'b' };
  });
}

describe('findOutlierJudges', () => {
  it('flags a judge who always votes against a clear consensus, and no honest judge', () => {
    const reports = findOutlierJudges([...honestVotes(1), ...contrarianVotes(99, 60, 2)]);
    expect(reports).toHaveLength(41);
    expect(reports[0]).toMatchObject({ judgeId: 99, votes: 60, flagged: true });
    expect(reports[0]!.pValue).toBeLessThan(1e-6);
    expect(reports.filter((report) => report.flagged).map((report) => report.judgeId)).toEqual([99]);
  });

  it('catches a contrarian within 30 votes, and a judge who calls every battle a draw', () => {
    const ties: JudgeVote[] = contrarianVotes(98, 40, 11).map((vote, i) => ({
      ...vote,
      outcome: i % 2 ? 'tie' : 'both_bad',
    }));
    const reports = findOutlierJudges([...honestVotes(12), ...contrarianVotes(99, 30, 13), ...ties]);
    expect(
      reports
        .filter((report) => report.flagged)
        .map((report) => report.judgeId)
        .sort((x, y) => x - y),
    ).toEqual([98, 99]);
    for (const report of reports.slice(0, 2)) expect(report.statistic).toBeGreaterThan(2 * report.scoredVotes);
  });

  it('flags no one when every judge is honest', () => {
    for (const seed of [3, 4, 5]) {
      expect(findOutlierJudges(honestVotes(seed)).filter((report) => report.flagged)).toEqual([]);
    }
  });

  it('does not let one judge flooding a pair turn the honest judges of that pair into outliers', () => {
    const flood: JudgeVote[] = Array.from({ length: 300 }, () => ({ judgeId: 77, a: 1, b: 15, outcome: 'a' }));
    const reports = findOutlierJudges([...honestVotes(6), ...flood]);
    expect(reports.filter((report) => report.flagged).map((report) => report.judgeId)).toEqual([77]);
  });

  it('scores only votes on pairs with enough other judges, and flags only judges with enough scored votes', () => {
    const sparse = findOutlierJudges([...honestVotes(7, 2), ...contrarianVotes(99, 4, 8)]);
    for (const report of sparse) {
      expect(report.scoredVotes).toBe(0);
      expect(report).toMatchObject({ statistic: 0, pValue: 1, flagged: false });
    }
    const few = findOutlierJudges([...honestVotes(7), ...contrarianVotes(99, 4, 8)]);
    expect(few.find((report) => report.judgeId === 99)).toMatchObject({ votes: 4, flagged: false });
  });

  it('is deterministic', () => {
    const votes = [...honestVotes(9), ...contrarianVotes(99, 30, 10)];
    expect(findOutlierJudges(votes)).toEqual(findOutlierJudges(votes));
  });
});

describe('chiSquareSurvivalEvenDf', () => {
  it('matches known chi-squared tail probabilities', () => {
    expect(chiSquareSurvivalEvenDf(10, 1)).toBeCloseTo(Math.exp(-5), 12);
    expect(chiSquareSurvivalEvenDf(9.487729, 2)).toBeCloseTo(0.05, 6);
    expect(chiSquareSurvivalEvenDf(37.56623, 10)).toBeCloseTo(0.01, 6);
    expect(chiSquareSurvivalEvenDf(0, 5)).toBe(1);
  });

  it('stays accurate for thousands of votes', () => {
    const median = chiSquareSurvivalEvenDf(2 * 2000 - 2 / 3, 2000);
    expect(median).toBeCloseTo(0.5, 2);
    const extreme = chiSquareSurvivalEvenDf(20_000, 2000);
    expect(extreme).toBeGreaterThanOrEqual(0);
    expect(extreme).toBeLessThan(1e-100);
  });
});
