/** The refresh's votes as columns: gathered in any order, read back in battle order, one board at a time. */
import { VoteColumnsBuilder, boardVotesOf, voteColumns } from '../../../activities/vote-columns';
import type { BoardVote } from '../../../domain/ratings/boards';

const vote = (k: number): BoardVote => ({
  a: 1 + (k % 7),
  b: 8 + (k % 5),
  outcome: (['a', 'b', 'tie', 'both_bad'] as const)[k % 4]!,
  category: ['math', 'coding', 'live'][k % 3]!,
  features: [k / 10, -k / 20, (k % 3) - 1, 0.5],
});

describe('VoteColumnsBuilder', () => {
  it('gives back every vote it was given, in battle order, however many and in whatever order they came', () => {
    const builder = new VoteColumnsBuilder();
    // More than its first capacity, the later battles first.
    const battles = Array.from({ length: 3000 }, (_, k) => 3000 - k);
    for (const battle of battles) builder.add(battle, vote(battle));
    const columns = builder.build();
    expect(columns.count).toBe(3000);
    const read = boardVotesOf(columns);
    const plain = ({ a, b, outcome, category, features }: BoardVote) => ({
      a,
      b,
      outcome,
      category,
      features: Array.from(features),
    });
    expect(read.map(plain)).toEqual(Array.from({ length: 3000 }, (_, k) => vote(k + 1)));
  });

  it("reads one category's votes only, in battle order, and none of a category it has not", () => {
    const votes = Array.from({ length: 30 }, (_, k) => vote(k));
    const columns = voteColumns(votes);
    const math = boardVotesOf(columns, 'math');
    expect(math.map((v) => Array.from(v.features))).toEqual(
      votes.filter((v) => v.category === 'math').map((v) => v.features),
    );
    expect(math.every((v) => v.category === 'math')).toBe(true);
    expect(boardVotesOf(columns, 'poetry')).toEqual([]);
    expect(boardVotesOf(voteColumns([]))).toEqual([]);
  });

  it('refuses a vote without one number per style feature', () => {
    expect(() => new VoteColumnsBuilder().add(1, { ...vote(1), features: [1, 2] })).toThrow(
      'every vote needs 4 style features; one has 2',
    );
  });
});
