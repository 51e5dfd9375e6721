/** One Elo change of one agent from one vote, or its reversal when an operator voided the vote: the rating history, for plots. */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { Agent } from './agent.entity';
import type { RatingChangeKind } from '../../../domain/ratings/elo';
import { Battle } from './battle.entity';

export class RatingChange {
  [OptionalProps]?: 'createdAt' | 'kind';
  id!: number;
  agent!: Ref<Agent>;
  battle!: Ref<Battle>;
  before!: number;
  after!: number;
  /** `vote`: the vote's change; `void`: the same change taken back. */
  kind: RatingChangeKind = 'vote';
  createdAt: Date = new Date();
}

export const RatingChangeSchema = new EntitySchema<RatingChange>({
  class: RatingChange,
  tableName: 'rating_changes',
  uniques: [{ name: 'rating_changes_agent_battle_unique', properties: ['agent', 'battle', 'kind'] }],
  indexes: [{ name: 'rating_changes_agent_history_index', properties: ['agent', 'id'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    agent: { kind: 'm:1', entity: () => Agent, ref: true, deleteRule: 'cascade' },
    battle: { kind: 'm:1', entity: () => Battle, ref: true, deleteRule: 'cascade' },
    before: { type: 'integer' },
    after: { type: 'integer' },
    kind: { type: 'string', length: 8, default: 'vote' },
    createdAt: { type: 'datetime', length: 6 },
  },
});
