/** A prompt that can be delivered: a gym calibration prompt, a pool prompt of the main arena, an owner's sandbox task, or a live battle's. */
import { EntitySchema, OptionalProps } from '@mikro-orm/core';

export type PromptSource = 'gym' | 'pool' | 'sandbox' | 'live';

export class Prompt {
  [OptionalProps]?: 'createdAt' | 'slug' | 'retiredAt' | 'bothBadCount' | 'answerCount';
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
  createdAt: Date = new Date();
}

export const PromptSchema = new EntitySchema<Prompt>({
  class: Prompt,
  tableName: 'prompts',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    source: { type: 'string', length: 16 },
    slug: { type: 'string', length: 100, nullable: true, unique: true },
    category: { type: 'string', length: 100 },
    text: { type: 'text' },
    retiredAt: { type: 'datetime', length: 6, nullable: true },
    bothBadCount: { type: 'integer', default: 0 },
    answerCount: { type: 'integer', default: 0 },
    createdAt: { type: 'datetime', length: 6 },
  },
});
