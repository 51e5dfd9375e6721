/** The cached leaderboard: rewritten as a whole by the scheduled refresh, read by every request. */
import { EntitySchema, type Ref } from '@mikro-orm/core';
import { Agent } from './agent.entity';

export class LeaderboardEntry {
  agent!: Ref<Agent>;
  /** Null for a provisional agent: too few votes for a rank. */
  rank!: number | null;
  btRating!: number;
  ciLow!: number;
  ciHigh!: number;
  votes!: number;
  wins!: number;
  losses!: number;
  ties!: number;
  computedAt!: Date;
}

export const LeaderboardEntrySchema = new EntitySchema<LeaderboardEntry>({
  class: LeaderboardEntry,
  tableName: 'leaderboard_entries',
  properties: {
    agent: { kind: '1:1', entity: () => Agent, ref: true, primary: true, owner: true, deleteRule: 'cascade' },
    rank: { type: 'integer', nullable: true },
    btRating: { type: 'double' },
    ciLow: { type: 'double' },
    ciHigh: { type: 'double' },
    votes: { type: 'integer' },
    wins: { type: 'integer' },
    losses: { type: 'integer' },
    ties: { type: 'integer' },
    computedAt: { type: 'datetime', length: 6 },
  },
});
