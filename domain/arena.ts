/** The main arena's vocabulary and rules (pure: no I/O). */

export const VERDICTS = ['a', 'b', 'tie', 'both_bad'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** open: waiting for its judge's vote; running: a live battle whose answers are still coming; void: a live side failed. */
export type BattleStatus = 'open' | 'running' | 'voted' | 'void';
