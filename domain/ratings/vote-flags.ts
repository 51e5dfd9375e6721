/** The words of vote flags: why a published vote is left out of the boards and the export. */

/**
 * `outlier`: a judge whose verdicts contradict the other judges' on the same pairs far beyond chance
 * (`outlier-judges.ts`). `judge`, `cluster`, `address`: a judge, a registration cluster or a client
 * address whose votes for or against one agent the fitted model cannot explain
 * (`concentrated-votes.ts`).
 */
export type FlagKind = 'outlier' | 'judge' | 'cluster' | 'address';

/**
 * Why a published vote is not counted: its judge was in probation when it was cast, it was flagged,
 * held (the rule-established cohort's votes on an agent, until an operator decides), voided by an
 * operator, cast on a live battle (the requester's own comparison), or the arena has no trusted
 * judge to measure anyone against.
 */
export type UncountedReason = 'probation' | 'flagged' | 'held' | 'voided' | 'live' | 'no-reference';
