/** A prompt that can be delivered: a gym calibration prompt, a pool prompt of the main arena, an owner's sandbox task, or a live battle's. */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

export type PromptSource = 'gym' | 'pool' | 'sandbox' | 'live';

/** Where a live prompt offered to the pool stands with the operators. */
export type PromptReview = 'offered' | 'accepted' | 'rejected';

export class Prompt {
  [OptionalProps]?:
    'createdAt' | 'slug' | 'retiredAt' | 'bothBadCount' | 'answerCount' | 'offeredAt' | 'offeredBy' | 'review';
  id!: number;
  source!: PromptSource;
  /** Stable name of a seeded prompt (`gym/echo`); null for sandbox prompts. */
  slug: string | null = null;
  category!: string;
  text!: string;
  /** A retired pool prompt is never dispatched again; its past answers stay judgeable. */
  retiredAt: Date | null = null;
  /** Votes that found both answers bad: a sign the prompt itself may be poor. */
  bothBadCount = 0;
  /** Main-arena answers so far; dispatch prefers prompts with exactly one, so battles form quickly. */
  answerCount = 0;
  /** A live prompt its author offered to the pool; operators accept (a pool copy is made) or reject it. */
  offeredAt: Date | null = null;
  offeredBy: Ref<User> | null = null;
  review: PromptReview | null = null;
  createdAt: Date = new Date();
}

export const PromptSchema = new EntitySchema<Prompt>({
  class: Prompt,
  tableName: 'prompts',
  indexes: [
    {
      name: 'prompts_offered_review_index',
      expression: `create index "prompts_offered_review_index" on "prompts" ("offered_at") where "review" = 'offered'`,
    },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    source: { type: 'string', length: 16 },
    slug: { type: 'string', length: 100, nullable: true, unique: true },
    category: { type: 'string', length: 100 },
    text: { type: 'text' },
    retiredAt: { type: 'datetime', length: 6, nullable: true },
    bothBadCount: { type: 'integer', default: 0 },
    answerCount: { type: 'integer', default: 0 },
    offeredAt: { type: 'datetime', length: 6, nullable: true },
    offeredBy: { kind: 'm:1', entity: () => User, ref: true, nullable: true, deleteRule: 'set null' },
    review: { type: 'string', length: 16, nullable: true },
    createdAt: { type: 'datetime', length: 6 },
  },
});
