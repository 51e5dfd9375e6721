import { TIERS, TIER_NAMES, shownTier, tierFor } from '../../../domain/ratings/tiers';

describe('tiers', () => {
  it.each([
    [0, 'Novice'],
    [1299, 'Novice'],
    [1299.9, 'Novice'],
    [1300, 'Contender'],
    [1449, 'Contender'],
    [1450, 'Specialist'],
    [1500, 'Specialist'],
    [1549, 'Specialist'],
    [1550, 'Expert'],
    [1699, 'Expert'],
    [1700, 'Elite'],
    [1849, 'Elite'],
    [1850, 'Master'],
    [1999, 'Master'],
    [2000, 'Grandmaster'],
    [3100, 'Grandmaster'],
  ])('puts %d in %s', (elo, tier) => {
    expect(tierFor(elo)).toBe(tier);
  });

  it('lists the bands in order, each starting where the last ended', () => {
    expect(TIERS.map((tier) => tier.name)).toEqual([...TIER_NAMES]);
    for (let i = 1; i < TIERS.length; i++) expect(TIERS[i]!.min).toBe(TIERS[i - 1]!.max! + 1);
    expect(TIERS[0]?.min).toBeNull();
    expect(TIERS.at(-1)?.max).toBeNull();
  });

  it('shows none for an agent no vote has rated yet, whatever its Elo', () => {
    expect(shownTier(1500, false)).toBeNull();
    expect(shownTier(1500, true)).toBe('Specialist');
  });

  it('refuses a rating that is not a number', () => {
    expect(() => tierFor(Number.NaN)).toThrow(RangeError);
  });
});
