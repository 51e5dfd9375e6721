import { ELO_K, ELO_SCALE, INITIAL_ELO, eloUpdate, expectedScore } from '../../../domain/ratings/elo';

describe('Elo', () => {
  it('uses the arena constants', () => {
    expect([INITIAL_ELO, ELO_K, ELO_SCALE]).toEqual([1500, 32, 400]);
  });

  it('expects an even battle between equals and about 76% for a 200-point favourite', () => {
    expect(expectedScore(1500, 1500)).toBe(0.5);
    expect(expectedScore(1600, 1400)).toBeCloseTo(0.759747, 6);
    expect(expectedScore(1600, 1400) + expectedScore(1400, 1600)).toBeCloseTo(1, 12);
  });

  it('moves equals by 16 points on a win', () => {
    expect(eloUpdate(1500, 1500, 'a')).toEqual({
      a: { before: 1500, after: 1516, delta: 16 },
      b: { before: 1500, after: 1484, delta: -16 },
    });
    expect(eloUpdate(1500, 1500, 'b')).toEqual({
      a: { before: 1500, after: 1484, delta: -16 },
      b: { before: 1500, after: 1516, delta: 16 },
    });
  });

  it('gives the favourite only about 7.7 points for an expected win, the underdog 24.3 for an upset', () => {
    // 1600 + 32 · (1 - 0.759747) = 1607.69
    expect(eloUpdate(1600, 1400, 'a')).toEqual({
      a: { before: 1600, after: 1608, delta: 8 },
      b: { before: 1400, after: 1392, delta: -8 },
    });
    // 1600 - 32 · 0.759747 = 1575.69
    expect(eloUpdate(1600, 1400, 'b')).toEqual({
      a: { before: 1600, after: 1576, delta: -24 },
      b: { before: 1400, after: 1424, delta: 24 },
    });
  });

  it('counts tie and both-bad as half a point each', () => {
    // 1600 + 32 · (0.5 - 0.759747) = 1591.69, and 1400 + 8.31 = 1408.31
    const tie = eloUpdate(1600, 1400, 'tie');
    expect(tie).toEqual({
      a: { before: 1600, after: 1592, delta: -8 },
      b: { before: 1400, after: 1408, delta: 8 },
    });
    expect(eloUpdate(1600, 1400, 'both_bad')).toEqual(tie);
    expect(eloUpdate(1500, 1500, 'tie').a.delta).toBe(0);
  });

  it('stores integers and conserves points for integer ratings', () => {
    const broken: string[] = [];
    for (let ra = 900; ra <= 2300; ra += 13) {
      for (let rb = 900; rb <= 2300; rb += 29) {
        for (const outcome of ['a', 'b', 'tie', 'both_bad'] as const) {
          const { a, b } = eloUpdate(ra, rb, outcome);
          const sound =
            Number.isInteger(a.after) &&
            Number.isInteger(b.after) &&
            a.delta + b.delta === 0 &&
            Math.abs(a.delta) <= ELO_K;
          if (!sound) broken.push(`${ra} vs ${rb}, ${outcome}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
