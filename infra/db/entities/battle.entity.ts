/**
 * A battle: two answers to one prompt from agents of different owners, shown to one judge as
 * anonymous sides a and b. Pool battles are made by judge/next from existing answers; live
 * battles by POST /api/battles, which sends its own prompt to two agents.
 */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import type { BattleStatus, Verdict } from '../../../domain/arena';
import type { JudgedAs } from '../../../domain/judges';
import { Agent } from './agent.entity';
import { Prompt } from './prompt.entity';
import { Delivery } from './delivery.entity';
import { User } from './user.entity';
import { VoteHold } from './vote-hold.entity';

export class Battle {
  [OptionalProps]?:
    | 'createdAt'
    | 'votedAt'
    | 'winner'
    | 'live'
    | 'status'
    | 'judgeNetwork'
    | 'judgeCluster'
    | 'voteNetwork'
    | 'eloWeight'
    | 'judgedAs'
    | 'hold'
    | 'voidedAt';
  id!: number;
  prompt!: Ref<Prompt>;
  judge!: Ref<User>;
  sessionA!: Ref<Delivery>;
  sessionB!: Ref<Delivery>;
  agentA!: Ref<Agent>;
  agentB!: Ref<Agent>;
  /** The two sessions' ids in ascending order: the unordered pair, to count how often it was judged. */
  pairLow!: number;
  pairHigh!: number;
  live = false;
  status: BattleStatus = 'open';
  winner: Verdict | null = null;
  votedAt: Date | null = null;
  /**
   * The client address the battle was handed to (judge/next, or the live battle's start), and the
   * judge's registration cluster (on a live battle, the cluster whose agents a replacement avoids:
   * none for a trusted judge).
   */
  judgeNetwork: string | null = null;
  judgeCluster: number | null = null;
  /** The client address the vote came from: what the per-address daily budget counts. */
  voteNetwork: string | null = null;
  /** How much of Elo's K the vote used: 1 for an established judge, less for a new one. */
  eloWeight: number | null = null;
  /** The judge's standing when the vote was cast: only a vote cast as `trusted` or `established` counts. */
  judgedAs: JudgedAs | null = null;
  /** The hold the vote is under, or was (a rule-established judge's vote on an agent whose cohort was held). */
  hold: Ref<VoteHold> | null = null;
  /** When an operator voided the vote: it counts nowhere, and its Elo changes were reversed. */
  voidedAt: Date | null = null;
  createdAt: Date = new Date();
}

export const BattleSchema = new EntitySchema<Battle>({
  class: Battle,
  tableName: 'battles',
  indexes: [
    { name: 'battles_pair_index', properties: ['pairLow', 'pairHigh'] },
    { name: 'battles_judge_voted_index', properties: ['judge', 'votedAt'] },
    { name: 'battles_vote_network_index', properties: ['voteNetwork', 'votedAt'] },
    {
      name: 'battles_judge_open_index',
      expression: `create index "battles_judge_open_index" on "battles" ("judge_id") where "status" = 'open'`,
    },
  ],
  uniques: [{ name: 'battles_judge_pair_unique', properties: ['judge', 'pairLow', 'pairHigh'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    prompt: { kind: 'm:1', entity: () => Prompt, ref: true },
    judge: { kind: 'm:1', entity: () => User, ref: true, deleteRule: 'cascade' },
    sessionA: { kind: 'm:1', entity: () => Delivery, ref: true, deleteRule: 'cascade', index: true },
    sessionB: { kind: 'm:1', entity: () => Delivery, ref: true, deleteRule: 'cascade', index: true },
    agentA: { kind: 'm:1', entity: () => Agent, ref: true, deleteRule: 'cascade', index: true },
    agentB: { kind: 'm:1', entity: () => Agent, ref: true, deleteRule: 'cascade', index: true },
    pairLow: { type: 'integer' },
    pairHigh: { type: 'integer' },
    live: { type: 'boolean', default: false },
    status: { type: 'string', length: 16, default: 'open' },
    winner: { type: 'string', length: 16, nullable: true },
    votedAt: { type: 'datetime', length: 6, nullable: true },
    judgeNetwork: { type: 'string', length: 64, nullable: true },
    judgeCluster: { type: 'integer', nullable: true },
    voteNetwork: { type: 'string', length: 64, nullable: true },
    eloWeight: { type: 'double', nullable: true },
    judgedAs: { type: 'string', length: 16, nullable: true },
    hold: { kind: 'm:1', entity: () => VoteHold, ref: true, nullable: true, deleteRule: 'set null', index: true },
    voidedAt: { type: 'datetime', length: 6, nullable: true },
    createdAt: { type: 'datetime', length: 6 },
  },
});
