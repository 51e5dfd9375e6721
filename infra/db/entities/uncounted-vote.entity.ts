/**
 * A published vote the boards do not count, and why, as of the last refresh: its judge is not
 * established yet, or was flagged. Rewritten by every refresh with the boards, so the export (every
 * published vote not listed here) always holds what the boards counted.
 */
import { EntitySchema, type Ref } from '@mikro-orm/core';
import type { UncountedReason } from '../../../domain/ratings/vote-flags';
import { Battle } from './battle.entity';

export class UncountedVote {
  battle!: Ref<Battle>;
  reason!: UncountedReason;
}

export const UncountedVoteSchema = new EntitySchema<UncountedVote>({
  class: UncountedVote,
  tableName: 'uncounted_votes',
  properties: {
    battle: { kind: '1:1', entity: () => Battle, ref: true, primary: true, owner: true, deleteRule: 'cascade' },
    reason: { type: 'string', length: 16 },
  },
});
