/**
 * The cached leaderboards, rewritten as a whole by the scheduled refresh, read by every request:
 * one row per agent per board. A board is the overall one (`all`) or a category's, raw or
 * controlled for style.
 */
import { EntitySchema, type Ref } from '@mikro-orm/core';
import { Agent } from './agent.entity';

export class LeaderboardEntry {
  /** `all`, or a category (`domain/ratings/boards.ts`). */
  board!: string;
  styleControl!: boolean;
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
    board: { type: 'string', length: 100, primary: true },
    styleControl: { type: 'boolean', primary: true },
    agent: { kind: 'm:1', entity: () => Agent, ref: true, primary: true, deleteRule: 'cascade', index: true },
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

/** A style-controlled board's coefficients: what each style feature (and the left side) is worth in a vote. */
export class LeaderboardCoefficient {
  board!: string;
  /** A style feature, or `position`. */
  name!: string;
  /** Its place in the fit's report: the features in order, then position. */
  ordinal!: number;
  estimate!: number;
  ciLow!: number;
  ciHigh!: number;
  computedAt!: Date;
}

export const LeaderboardCoefficientSchema = new EntitySchema<LeaderboardCoefficient>({
  class: LeaderboardCoefficient,
  tableName: 'leaderboard_coefficients',
  properties: {
    board: { type: 'string', length: 100, primary: true },
    name: { type: 'string', length: 32, primary: true },
    ordinal: { type: 'integer' },
    estimate: { type: 'double' },
    ciLow: { type: 'double' },
    ciHigh: { type: 'double' },
    computedAt: { type: 'datetime', length: 6 },
  },
});

/** A board whose players are agents' claims (their model, their tools): its rows and coefficients as the fit gave them. */
export class ClaimBoard {
  /** `model` or `tool` (`domain/ratings/claims.ts`). */
  by!: string;
  board!: string;
  styleControl!: boolean;
  entries!: unknown[];
  coefficients!: unknown[];
  computedAt!: Date;
}

export const ClaimBoardSchema = new EntitySchema<ClaimBoard>({
  class: ClaimBoard,
  tableName: 'claim_boards',
  properties: {
    by: { type: 'string', length: 10, primary: true },
    board: { type: 'string', length: 100, primary: true },
    styleControl: { type: 'boolean', primary: true },
    entries: { type: 'json' },
    coefficients: { type: 'json' },
    computedAt: { type: 'datetime', length: 6 },
  },
});
