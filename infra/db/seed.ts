/**
 * Seeds the prompts the service ships with: the gym and the main arena's pool. Safe on every
 * start. A seeded prompt never changes: a new text gets a new slug, so past sessions keep the
 * prompt they were sent, and a prompt an operator retired stays retired.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GYM_PROMPTS } from '../../domain/gym-prompts';
import { validatePoolSeed, type PoolPrompt } from '../../domain/prompt-files';

const POOL_SEED = path.join(__dirname, 'seeds', 'pool-prompts.json');

export function poolSeed(): PoolPrompt[] {
  const checked = validatePoolSeed(JSON.parse(fs.readFileSync(POOL_SEED, 'utf8')));
  if (!checked.ok) throw new Error(`${POOL_SEED} is invalid:\n  ${checked.errors.join('\n  ')}`);
  return checked.prompts;
}

/** Inserts prompts by slug; existing slugs are left as they are. Returns how many were new. */
export async function insertPrompts(em: EntityManager, source: 'gym' | 'pool', prompts: readonly PoolPrompt[]): Promise<number> {
  if (prompts.length === 0) return 0;
  const rows = await em.getConnection().execute<Array<{ id: number }>>(
    `insert into prompts (source, slug, category, text, created_at)
     select ?, p.slug, p.category, p.text, now() from jsonb_to_recordset(?::jsonb) as p(slug text, category text, text text)
     on conflict (slug) do nothing
     returning id`,
    [source, JSON.stringify(prompts)],
  );
  return rows.length;
}

export async function seedPrompts(em: EntityManager): Promise<void> {
  await insertPrompts(em, 'gym', GYM_PROMPTS);
  await insertPrompts(em, 'pool', poolSeed());
}
