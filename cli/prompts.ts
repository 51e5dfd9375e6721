/** `arena prompts …`: operators add pool prompts from a file, retire them, and list them. */
import fs from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import { flaggedJudges } from '../infra/db/repositories/leaderboard.repository';
import { insertPrompts, listPoolPrompts, retirePoolPrompts } from '../infra/db/repositories/prompt.repository';
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
}

export async function listFlaggedJudges(em: EntityManager, print: Print): Promise<void> {
  const rows = await flaggedJudges(em);
  print(['user_id', 'username', 'votes', 'p_value'].join('\t'));
  for (const r of rows) print([r.id, r.username, r.votes, r.p_value.toExponential(2)].join('\t'));
  print(`${rows.length} judge(s) flagged; their votes are left out of the leaderboard fit`);
}
