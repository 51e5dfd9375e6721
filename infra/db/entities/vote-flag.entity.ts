/**
 * What the last leaderboard refresh flagged, one row per flagged group: a judge whose verdicts
 * contradict the other judges' (an outlier), or a judge, a registration cluster or a client address
 * whose votes for or against one agent the fitted model cannot explain (concentrated). Their votes
 * are left out of the boards and the export (`uncounted_votes`).
 */
import { EntitySchema, type Ref } from '@mikro-orm/core';
import type { FlagKind } from '../../../domain/ratings/vote-flags';
import { User } from './user.entity';

export class VoteFlag {
  id!: number;
  kind!: FlagKind;
  /** The judge flagged (outlier, judge). */
  judge!: Ref<User> | null;
  /** The registration cluster flagged (its first account's id). */
  cluster!: number | null;
  /** The client address flagged. */
  network!: string | null;
  /** The agent the votes concentrated on, and whether they were for or against it. */
  agentId!: number | null;
  direction!: 'for' | 'against' | null;
  votes!: number;
  pValue!: number;
  /** The arena's own sentence, for operators. */
  reason!: string;
  flaggedAt!: Date;
}

export const VoteFlagSchema = new EntitySchema<VoteFlag>({
  class: VoteFlag,
  tableName: 'vote_flags',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    kind: { type: 'string', length: 16 },
    judge: { kind: 'm:1', entity: () => User, ref: true, nullable: true, deleteRule: 'cascade' },
    cluster: { type: 'integer', nullable: true },
    network: { type: 'string', length: 64, nullable: true },
    agentId: { type: 'integer', nullable: true },
    direction: { type: 'string', length: 8, nullable: true },
    votes: { type: 'integer' },
    pValue: { type: 'double' },
    reason: { type: 'text' },
    flaggedAt: { type: 'datetime', length: 6 },
  },
});
