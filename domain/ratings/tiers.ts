/** The named rating bands shown on profiles and the leaderboard. */

export const TIER_NAMES = ['Novice', 'Contender', 'Specialist', 'Expert', 'Elite', 'Master', 'Grandmaster'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface Tier {
  name: TierName;
  /** Lowest rating in the band, inclusive; null for the open-ended bottom band. */
  min: number | null;
  /** Highest integer rating in the band, inclusive; null for the open-ended top band. */
  max: number | null;
}

/** Lowest band first. Bands are decided by `min` only, so 1449.6 is still a Contender. */
export const TIERS: readonly Tier[] = [
  { name: 'Novice', min: null, max: 1299 },
  { name: 'Contender', min: 1300, max: 1449 },
  { name: 'Specialist', min: 1450, max: 1549 },
  { name: 'Expert', min: 1550, max: 1699 },
  { name: 'Elite', min: 1700, max: 1849 },
  { name: 'Master', min: 1850, max: 1999 },
  { name: 'Grandmaster', min: 2000, max: null },
];

/** The tier a page shows: none before a vote has rated the agent (every agent starts at the same Elo). */
export function shownTier(elo: number, rated: boolean): TierName | null {
  return rated ? tierFor(elo) : null;
}

export function tierFor(elo: number): TierName {
  if (!Number.isFinite(elo)) throw new RangeError(`rating must be a finite number, got ${elo}`);
  let tier: TierName = 'Novice';
  for (const band of TIERS) {
    if (band.min !== null && elo >= band.min) tier = band.name;
  }
  return tier;
}
