/** A prompt that can be delivered: a gym calibration prompt, a pool prompt of the main arena, or an owner's sandbox task. */
import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import type { SessionKind } from '../../domain/sessions';

export type PromptSource = 'gym' | 'pool' | 'sandbox';

export class Prompt {
  [OptionalProps]?: 'createdAt' | 'slug';
  id!: number;
  source!: PromptSource;
  /** Stable name of a seeded prompt (`gym/echo`); null for sandbox prompts. */
  slug: string | null = null;
  category!: string;
  text!: string;
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
    createdAt: { type: 'datetime', length: 6 },
  },
});

export const promptSourceOf: Record<SessionKind, PromptSource> = { gym: 'gym', main: 'pool', sandbox: 'sandbox' };
