/** The main arena's vocabulary and rules (pure: no I/O). */

export const VERDICTS = ['a', 'b', 'tie', 'both_bad'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** open: waiting for its judge's vote; running: a live battle whose answers are still coming; void: a live side failed. */
export type BattleStatus = 'open' | 'running' | 'voted' | 'void';

/** How pool pairs are handed out in time (`ARENA_JUDGING_WINDOW_MINUTES`). */
export interface JudgingWindow {
  /** An answer leaves judging this long after one of its pairs was first handed to a judge. */
  windowSeconds: number;
  /** A pair is handed out only while both its answers have this much of judging left: a third of the window. */
  marginSeconds: number;
}

export function judgingWindow(windowMinutes: number): JudgingWindow {
  return { windowSeconds: windowMinutes * 60, marginSeconds: windowMinutes * 20 };
}
