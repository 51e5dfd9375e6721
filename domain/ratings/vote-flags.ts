/** The words of vote flags: why a published vote is left out of the boards and the export. */

/**
 * `outlier`: a judge whose verdicts contradict the other judges' on the same pairs far beyond chance
 * (`outlier-judges.ts`). `judge`, `cluster`, `address`: a judge, a registration cluster or a client
 * address whose votes for or against one agent the fitted model cannot explain
 * (`concentrated-votes.ts`).
 */
export type FlagKind = 'outlier' | 'judge' | 'cluster' | 'address';

/** Why a published vote is not counted: its judge is not established yet, it was flagged, or an operator voided it. */
export type UncountedReason = 'new-judge' | 'flagged' | 'voided';
