/**
 * A hold: the votes of judges established by the rule (not an operator's) on one agent's pairs, held
 * out of the boards and the export, their Elo changes taken back, because together they went for or
 * against the agent beyond what the trusted judges' votes predict. It stays until an operator
 * releases the votes (they count again, their Elo changes given back) or voids them.
 */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import type { HoldDecision } from '../../../domain/judges';
import { Agent } from './agent.entity';

export class VoteHold {
  [OptionalProps]?: 'decision' | 'decidedAt' | 'decisionReason';
  id!: number;
  agent!: Ref<Agent>;
  direction!: 'for' | 'against';
  /** The cohort's votes with the agent when the hold was made, the agent's score in them, and what the trusted judges' fit expected. */
  votes!: number;
  observed!: number;
  expected!: number;
  pValue!: number;
  /** The arena's own sentence, for operators. */
  reason!: string;
  heldAt!: Date;
  decision: HoldDecision | null = null;
  decidedAt: Date | null = null;
  decisionReason: string | null = null;
}

export const VoteHoldSchema = new EntitySchema<VoteHold>({
  class: VoteHold,
  tableName: 'vote_holds',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    agent: { kind: 'm:1', entity: () => Agent, ref: true, deleteRule: 'cascade', index: true },
    direction: { type: 'string', length: 8 },
    votes: { type: 'integer' },
    observed: { type: 'double' },
    expected: { type: 'double' },
    pValue: { type: 'double' },
    reason: { type: 'text' },
    heldAt: { type: 'datetime', length: 6 },
    decision: { type: 'string', length: 16, nullable: true },
    decidedAt: { type: 'datetime', length: 6, nullable: true },
    decisionReason: { type: 'text', nullable: true },
  },
});
