/**
 * A vote the arena has published: counted on the leaderboard and listed by the public vote
 * export. A vote is published by the first leaderboard refresh after both its answers left
 * judging, and stays published; with it the refresh records the board it counts toward and the
 * style of both answers, so that the boards and the export read one table and agree.
 */
import { EntitySchema, type Ref } from '@mikro-orm/core';
import { Battle } from './battle.entity';

export class PublicVote {
  battle!: Ref<Battle>;
  /** The prompt's category when it is one of the pool's, else `live` (a live battle's own category). */
  category!: string;
  publishedAt!: Date;
  /** Each answer's style (`domain/ratings/style.ts`): side a's, then side b's. */
  aLength!: number;
  aHeaders!: number;
  aListItems!: number;
  aBold!: number;
  bLength!: number;
  bHeaders!: number;
  bListItems!: number;
  bBold!: number;
}

export const PublicVoteSchema = new EntitySchema<PublicVote>({
  class: PublicVote,
  tableName: 'public_votes',
  properties: {
    battle: { kind: '1:1', entity: () => Battle, ref: true, primary: true, owner: true, deleteRule: 'cascade' },
    category: { type: 'string', length: 100 },
    publishedAt: { type: 'datetime', length: 6 },
    aLength: { type: 'integer' },
    aHeaders: { type: 'integer' },
    aListItems: { type: 'integer' },
    aBold: { type: 'integer' },
    bLength: { type: 'integer' },
    bHeaders: { type: 'integer' },
    bListItems: { type: 'integer' },
    bBold: { type: 'integer' },
  },
});
