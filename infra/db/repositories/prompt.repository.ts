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

/** A live prompt offered to the pool and waiting for an operator. */
export interface OfferedPromptRow {
  id: number;
  category: string;
  text: string;
  offered_by: string | null;
  offered_at: string;
}

/** Offered prompts still to review, oldest offer first (served by the partial index on offers). */
export function listOfferedPrompts(em: EntityManager): Promise<OfferedPromptRow[]> {
  return run<OfferedPromptRow>(
    em,
    `select p.id, p.category, p.text, u.username as offered_by, to_char(p.offered_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as offered_at
     from prompts p left join users u on u.id = p.offered_by_id
     where p.review = 'offered' order by p.offered_at, p.id`,
  );
}

/** Where a prompt stands in review: undefined when there is no such prompt, null when it was never offered. */
export async function reviewOf(em: EntityManager, promptId: number): Promise<string | null | undefined> {
  const [row] = await run<{ review: string | null }>(em, `select review from prompts where id = ?`, [promptId]);
  return row?.review;
}

/**
 * Accepts an offered prompt: it is marked accepted and copied into the pool as `pool/offered/<id>`
 * (the live battle keeps its own prompt, so its answers stay out of pool judging). Undefined when
 * the prompt is not waiting for review.
 */
export async function acceptOfferedPrompt(
  em: EntityManager,
  promptId: number,
): Promise<{ id: number; slug: string } | undefined> {
  const [row] = await run<{ id: number; slug: string }>(
    em,
    `with accepted as (
       update prompts set review = 'accepted' where id = ? and review = 'offered' returning id, category, text)
     insert into prompts (source, slug, category, text, created_at)
     select 'pool', 'pool/offered/' || id, category, text, now() from accepted
     on conflict (slug) do update set slug = excluded.slug
     returning id, slug`,
    [promptId],
  );
  return row;
}

/** Rejects an offered prompt: it is never dispatched. False when it was not waiting for review. */
export async function rejectOfferedPrompt(em: EntityManager, promptId: number): Promise<boolean> {
  const rows = await run(
    em,
    `update prompts set review = 'rejected' where id = ? and review = 'offered' returning id`,
    [promptId],
  );
  return rows.length > 0;
}

/**
 * Active agents that have been sent every active pool prompt: dispatch has nothing left for them.
 * One pass over main deliveries of active pool prompts, grouped by agent.
 */
export async function agentsWithPoolExhausted(em: EntityManager): Promise<number> {
  const rows = await run<{ n: number }>(
    em,
    `with pool as (select id from prompts where source = 'pool' and retired_at is null)
     select count(*)::int as n from (
       select s.agent_id from sessions s join agents a on a.id = s.agent_id
       where s.kind = 'main' and s.prompt_id in (select id from pool) and not a.deactivated
       group by s.agent_id
       having count(distinct s.prompt_id) = (select count(*) from pool)) exhausted`,
  );
  return rows[0]?.n ?? 0;
}
