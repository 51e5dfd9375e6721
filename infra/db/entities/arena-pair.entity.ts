/**
 * A candidate pair for judging: two answers to one pool prompt from agents of different owners,
 * made when the later answer was recorded and handed to at most `ARENA_VOTES_PER_PAIR` judges.
 */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { Prompt } from './prompt.entity';
import { Delivery } from './delivery.entity';

export class ArenaPair {
  [OptionalProps]?: 'shown' | 'trustedShown' | 'votes' | 'open' | 'dueAt' | 'createdAt';
  id!: number;
  prompt!: Ref<Prompt>;
  /** The two sessions in ascending id order, as battles name the pair (`pair_low`, `pair_high`). */
  sessionLow!: Ref<Delivery>;
  sessionHigh!: Ref<Delivery>;
  /** Copied from the sessions, so judge/next filters a judge's own agents without a join. */
  agentLowId!: number;
  agentHighId!: number;
  ownerLowId!: number;
  ownerHighId!: number;
  /** Judges it was handed to. */
  shown = 0;
  /** Trusted judges it was handed to: judges in probation take only pairs a trusted judge has (or had). */
  trustedShown = 0;
  /** Votes cast on its battles. */
  votes = 0;
  /** False once it was handed to as many judges as a pair gets. */
  open = true;
  /**
   * When the first of its two answers leaves judging: judge/next hands out the open pair due first
   * (an answer whose judging began is due within the judging window), so answers leave judging,
   * and their votes reach the board, one after another rather than all at the end.
   */
  dueAt!: Date;
  createdAt: Date = new Date();
}

export const ArenaPairSchema = new EntitySchema<ArenaPair>({
  class: ArenaPair,
  tableName: 'arena_pairs',
  indexes: [
    {
      name: 'arena_pairs_open_index',
      expression: `create index "arena_pairs_open_index" on "arena_pairs" ("due_at", "id") where "open"`,
    },
  ],
  uniques: [{ name: 'arena_pairs_sessions_unique', properties: ['sessionLow', 'sessionHigh'] }],
  checks: [{ name: 'arena_pairs_sessions_ordered', expression: 'session_low_id < session_high_id' }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    prompt: { kind: 'm:1', entity: () => Prompt, ref: true },
    sessionLow: { kind: 'm:1', entity: () => Delivery, ref: true, deleteRule: 'cascade', index: true },
    sessionHigh: { kind: 'm:1', entity: () => Delivery, ref: true, deleteRule: 'cascade', index: true },
    agentLowId: { type: 'integer' },
    agentHighId: { type: 'integer' },
    ownerLowId: { type: 'integer' },
    ownerHighId: { type: 'integer' },
    shown: { type: 'integer', default: 0 },
    trustedShown: { type: 'integer', default: 0 },
    votes: { type: 'integer', default: 0 },
    open: { type: 'boolean', default: true },
    dueAt: { type: 'datetime', length: 6 },
    createdAt: { type: 'datetime', length: 6, defaultRaw: 'now()' },
  },
});
