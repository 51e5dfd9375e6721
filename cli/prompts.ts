/** `arena prompts …`: operators add pool prompts from a file, retire them, list them, and review prompts offered from live battles. */
import fs from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  acceptOfferedPrompt,
  agentsWithPoolExhausted,
  insertPrompts,
  listOfferedPrompts,
  listPoolPrompts,
  rejectOfferedPrompt,
  retirePoolPrompts,
  reviewOf,
} from '../infra/db/repositories/prompt.repository';
import { parsePromptFile, promptFileFormat } from '../domain/prompt-files';

import { CommandError, type Print } from './command';

export { CommandError, type Print };

export async function addPrompts(
  em: EntityManager,
  file: string,
  defaultCategory: string | undefined,
  print: Print,
): Promise<void> {
  let content: string;
  try {
    content = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CommandError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const parsed = parsePromptFile(content, promptFileFormat(file), { defaultCategory });
  if (!parsed.ok) throw new CommandError(`${file} has errors; nothing was added:\n  ${parsed.errors.join('\n  ')}`);
  const added = await insertPrompts(em, 'pool', parsed.prompts);
  print(`added ${added} prompt(s) to the pool; ${parsed.prompts.length - added} already there (same slug)`);
}

/** Retires pool prompts by slug or id: never dispatched again; their answers stay judgeable. */
export async function retirePrompts(em: EntityManager, refs: string[], print: Print): Promise<void> {
  const ids = refs.filter((r) => /^\d+$/.test(r)).map(Number);
  const slugs = refs.filter((r) => !/^\d+$/.test(r));
  const rows = await retirePoolPrompts(em, { ids, slugs });
  const found = new Set(rows.flatMap((r) => [String(r.id), r.slug]));
  const missing = refs.filter((r) => !found.has(r));
  for (const r of [...rows].sort((x, y) => x.id - y.id)) print(`retired ${r.id} ${r.slug}`);
  if (missing.length > 0) throw new CommandError(`no pool prompt with id or slug: ${missing.join(', ')}`);
}

export async function listPrompts(
  em: EntityManager,
  opts: { category?: string; retired?: boolean },
  print: Print,
): Promise<void> {
  const rows = await listPoolPrompts(em, { category: opts.category ?? null, retired: opts.retired ?? false });
  print(['id', 'category', 'answers', 'both_bad', 'slug'].join('\t'));
  for (const r of rows) print([r.id, r.category, r.answer_count, r.both_bad_count, r.slug].join('\t'));
  print(`${rows.length} ${opts.retired ? 'retired' : 'active'} pool prompt(s)`);
  if (!opts.retired)
    print(
      `${await agentsWithPoolExhausted(em)} active agent(s) have been sent every active pool prompt (dispatch has nothing left for them)`,
    );
}

const EXCERPT = 60;

/** Prompts people offered from their live battles, waiting for an operator. */
export async function listOffered(em: EntityManager, print: Print): Promise<void> {
  const rows = await listOfferedPrompts(em);
  print(['id', 'category', 'offered_by', 'offered_at', 'text'].join('\t'));
  for (const r of rows) {
    const text = r.text.replace(/\s+/g, ' ').trim();
    const excerpt = text.length > EXCERPT ? `${text.slice(0, EXCERPT - 1)}…` : text;
    print([r.id, r.category, r.offered_by ?? '(deleted)', r.offered_at, excerpt].join('\t'));
  }
  print(`${rows.length} offered prompt(s) to review`);
}

function promptId(ref: string): number {
  if (!/^\d{1,9}$/.test(ref)) throw new CommandError(`a prompt id is a number, not "${ref}"`);
  return Number(ref);
}

/** Why a prompt cannot be reviewed: it does not exist, was never offered, or was reviewed already. */
async function notReviewable(em: EntityManager, id: number): Promise<CommandError> {
  const review = await reviewOf(em, id);
  if (review === undefined) return new CommandError(`no prompt with id ${id}`);
  if (review === null) return new CommandError(`prompt ${id} was not offered to the pool`);
  return new CommandError(`prompt ${id} was already ${review}`);
}

/** Accepts an offered prompt: a copy joins the pool, and dispatch sends it from now on. */
export async function acceptOffered(em: EntityManager, ref: string, print: Print): Promise<void> {
  const id = promptId(ref);
  const added = await acceptOfferedPrompt(em, id);
  if (!added) throw await notReviewable(em, id);
  print(`accepted ${id}: pool prompt ${added.id} ${added.slug}`);
}

/** Rejects an offered prompt: it is never dispatched. */
export async function rejectOffered(em: EntityManager, ref: string, print: Print): Promise<void> {
  const id = promptId(ref);
  if (!(await rejectOfferedPrompt(em, id))) throw await notReviewable(em, id);
  print(`rejected ${id}`);
}
