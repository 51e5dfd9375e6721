/** Seeds the prompts the service ships with; safe on every start. A seeded prompt never changes: a new text gets a new slug, so past sessions keep the prompt they were sent. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { GYM_PROMPTS } from '../domain/gym-prompts';

export async function seedPrompts(em: EntityManager): Promise<void> {
  const rows = GYM_PROMPTS.map((p) => [p.slug, p.category, p.text]);
  const values = rows.map(() => `('gym', ?, ?, ?, now())`).join(', ');
  await em.getConnection().execute(
    `insert into prompts (source, slug, category, text, created_at) values ${values}
     on conflict (slug) do nothing`,
    rows.flat(),
  );
}
