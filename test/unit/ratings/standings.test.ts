import { standings } from '../../../domain/ratings/standings';

const entry = (agentId: number, votes: number, ciLow: number, ciHigh: number) => ({
  agentId,
  votes,
  rating: (ciLow + ciHigh) / 2,
  ciLow,
  ciHigh,
});

describe('standings', () => {
  it('ranks agents with enough votes among themselves and lists the others after them, provisional and unranked', () => {
    const rows = standings(
      [
        // Far ahead of everyone, but on three votes: it claims nothing and pushes nobody down.
        entry(1, 3, 1900, 2600),
        entry(2, 40, 1600, 1700),
        entry(3, 9, 1400, 1900),
        entry(4, 10, 1500, 1590),
        entry(5, 25, 1300, 1400),
      ],
      10,
    );
    expect(rows.map((row) => [row.agentId, row.rank, row.provisional])).toEqual([
      [2, 1, false],
      [4, 2, false],
      [5, 3, false],
      [1, null, true],
      [3, null, true],
    ]);
  });

  it('lists everyone as provisional while nobody has enough votes', () => {
    const rows = standings([entry(1, 1, 1000, 2000), entry(2, 1, 1000, 2000)], 10);
    expect(rows.every((row) => row.provisional && row.rank === null)).toBe(true);
  });

  it('ranks everyone when the threshold is one vote', () => {
    const rows = standings([entry(1, 1, 1500, 1700), entry(2, 1, 1300, 1450)], 1);
    expect(rows.map((row) => row.rank)).toEqual([1, 2]);
  });

  it('lists ranked agents by rank, as the API does, when a wide interval shares the rank of better-rated ones', () => {
    const rows = standings(
      [
        { agentId: 1, votes: 50, rating: 1620, ciLow: 1610, ciHigh: 1630 },
        { agentId: 2, votes: 50, rating: 1580, ciLow: 1570, ciHigh: 1590 },
        // Rated below agent 2, but its interval reaches past agent 1's: nobody is clearly ahead of it.
        { agentId: 3, votes: 12, rating: 1560, ciLow: 1400, ciHigh: 1700 },
      ],
      10,
    );
    expect(rows.map((row) => [row.agentId, row.rank])).toEqual([
      [1, 1],
      [3, 1],
      [2, 2],
    ]);
  });
});
