/** Boards by claim: one spelling per claimed name, a set of tools as one player, and the votes remapped to the claims. */
import { playerColumns, voteColumns } from '../../../activities/vote-columns';
import { NO_TOOLS, claimOf, claimPlayers, normaliseClaim } from '../../../domain/ratings/claims';

describe('claims', () => {
  it('meet as one claim whatever the case and spacing; an empty claim is none', () => {
    expect(normaliseClaim('  GPT-4o ')).toBe('gpt-4o');
    expect(normaliseClaim('Claude\t 3.5  Sonnet')).toBe('claude 3.5 sonnet');
    expect(normaliseClaim('   ')).toBeNull();
    expect(normaliseClaim(null)).toBeNull();
  });

  it("make an agent's tools one player, alphabetical and without repeats; no tools is a player too", () => {
    expect(claimOf('tool', { model: null, tools: ['Python', 'browser', 'python '] })).toBe('browser + python');
    expect(claimOf('tool', { model: 'x', tools: [] })).toBe(NO_TOOLS);
    expect(claimOf('tool', { model: 'x', tools: [' '] })).toBe(NO_TOOLS);
    expect(claimOf('model', { model: null, tools: ['a'] })).toBeNull();
  });

  it('number the claims in alphabetical order and count their agents; agents without a model stay off the model board', () => {
    const agents = [
      { id: 7, model: 'B', tools: [] },
      { id: 3, model: 'a', tools: ['x'] },
      { id: 9, model: ' b', tools: [] },
      { id: 4, model: null, tools: [] },
    ];
    const { players, claims, agents: counts } = claimPlayers('model', agents);
    expect(claims).toEqual(['a', 'b']);
    expect(counts).toEqual([1, 2]);
    expect([...players.entries()].sort((x, y) => x[0] - y[0])).toEqual([
      [3, 1],
      [7, 2],
      [9, 2],
    ]);
  });

  it('remap the votes to the players, in order, leaving out a vote with a side of no claim', () => {
    const vote = (a: number, b: number) => ({
      a,
      b,
      outcome: 'a' as const,
      category: 'math',
      features: [0.1, 0, 0, 0],
    });
    const columns = voteColumns([vote(3, 7), vote(4, 7), vote(7, 9), vote(9, 3)]);
    const mapped = playerColumns(
      columns,
      new Map([
        [3, 1],
        [7, 2],
        [9, 2],
      ]),
    );
    expect(mapped.count).toBe(3);
    expect([...mapped.a]).toEqual([1, 2, 2]);
    expect([...mapped.b]).toEqual([2, 2, 1]);
    expect([...mapped.features]).toEqual([0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0]);
  });
});
