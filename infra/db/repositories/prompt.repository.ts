/** The SQL of `prompts`: seeding and operators' pool changes, and the counts deliveries and votes keep on each prompt. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PoolPrompt } from '../../../domain/prompt-files';
import { run } from './sql';

/** Inserts prompts by slug; existing slugs are left as they are. Returns how many were new. */
export async function insertPrompts(
  em: EntityManager,
  source: 'gym' | 'pool',
  prompts: readonly PoolPrompt[],
): Promise<number> {
  if (prompts.length === 0) return 0;
  const rows = await run<{ id: number }>(
    em,
    `insert into prompts (source, slug, category, text, created_at)
     select ?, p.slug, p.category, p.text, now() from jsonb_to_recordset(?::jsonb) as p(slug text, category text, text text)
     on conflict (slug) do nothing
     returning id`,
    [source, JSON.stringify(prompts)],
  );
  return rows.length;
}

/** Retires the pool prompts named by id or slug (a retired one keeps its first retirement time); returns those found. */
export function retirePoolPrompts(
  em: EntityManager,
  refs: { ids: readonly number[]; slugs: readonly string[] },
): Promise<Array<{ id: number; slug: string }>> {
  return run<{ id: number; slug: string }>(
    em,
    `update prompts set retired_at = coalesce(retired_at, now())
     where source = 'pool' and (id in (select jsonb_array_elements_text(?::jsonb)::int) or slug in (select jsonb_array_elements_text(?::jsonb)))
     returning id, slug`,
    [JSON.stringify(refs.ids), JSON.stringify(refs.slugs)],
  );
}

export interface PoolPromptRow {
  id: number;
  slug: string;
  category: string;
  answer_count: number;
  both_bad_count: number;
  retired: boolean;
}

/** The pool's active (or retired) prompts, of one category or all, by category then id. */
export function listPoolPrompts(
  em: EntityManager,
  filter: { category: string | null; retired: boolean },
): Promise<PoolPromptRow[]> {
  return run<PoolPromptRow>(
    em,
    `select id, slug, category, answer_count, both_bad_count, retired_at is not null as retired from prompts
     where source = 'pool' and (? :: text is null or category = ?) and (retired_at is not null) = ?
     order by category, id`,
    [filter.category, filter.category, filter.retired],
  );
}

/** One more main-arena answer to the prompt this session delivered. */
export async function countAnswer(em: EntityManager, sessionId: number): Promise<void> {
  await run(
    em,
    `update prompts set answer_count = answer_count + 1 where id = (select prompt_id from sessions where id = ?)`,
    [sessionId],
  );
}

/** One more vote that found both answers to this prompt bad. */
export async function countBothBad(em: EntityManager, promptId: number): Promise<void> {
  await run(em, `update prompts set both_bad_count = both_bad_count + 1 where id = ?`, [promptId]);
}
