/** Prompt files: turns the content of an operator's JSON or text file into validated pool prompts, and checks the shipped pool seed by the same rules. */
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** The categories the shipped pool covers; operators may add prompts in other categories too. */
export const POOL_CATEGORIES = ['coding', 'writing', 'research', 'reasoning', 'analysis', 'safety', 'math'] as const;
export type PoolCategory = (typeof POOL_CATEGORIES)[number];

export interface PoolPrompt {
  slug: string;
  category: string;
  text: string;
}

export type PromptFileResult = { ok: true; prompts: PoolPrompt[] } | { ok: false; errors: string[] };
export type PromptFileFormat = 'json' | 'text';

export interface PromptFileOptions {
  /** Category for entries or blocks that do not name their own; without it, such entries are errors. */
  defaultCategory?: string;
}

export const MAX_PROMPT_TEXT = 20_000;
export const TEXT_BLOCK_SEPARATOR = '---';

const CATEGORY_RULE = "must be lower-case letters, digits or '-', starting with a letter, at most 40 characters";
const SLUG_RULE =
  "must be lower-case letters, digits, '/', '_' or '-', starting with a letter or digit, at most 100 characters";

/** zod's default messages name types; these read as a sentence after "entry 3: text: ". */
const stringField = () =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') });

export const promptCategory = stringField()
  .trim()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, CATEGORY_RULE);
export const promptText = stringField()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_PROMPT_TEXT, 'must be at most 20,000 characters');
export const promptSlug = stringField().regex(/^[a-z0-9][a-z0-9/_-]{0,99}$/, SLUG_RULE);

const jsonEntry = z.strictObject({
  text: promptText.optional(),
  prompt: promptText.optional(),
  category: promptCategory.optional(),
  slug: promptSlug.optional(),
});

const jsonFile = z.union([z.array(z.unknown()), z.strictObject({ prompts: z.array(z.unknown()) })]);

const textBlock = z.object({ category: promptCategory, text: promptText });

const seedEntry = z
  .strictObject({ slug: promptSlug, category: promptCategory, text: promptText })
  .superRefine((entry, ctx) => {
    if (!(POOL_CATEGORIES as readonly string[]).includes(entry.category)) {
      ctx.addIssue({ code: 'custom', path: ['category'], message: `must be one of ${POOL_CATEGORIES.join(', ')}` });
    }
    if (!entry.slug.startsWith(`pool/${entry.category}/`)) {
      ctx.addIssue({ code: 'custom', path: ['slug'], message: `must start with pool/${entry.category}/` });
    }
  });

/** A stable name for a prompt that came without one: the same text in the same category always gets the same slug. */
export function generatedSlug(category: string, text: string): string {
  return `pool/${category}/${createHash('sha256').update(text).digest('hex').slice(0, 8)}`;
}

/** `.json` files are JSON; anything else is the text format. */
export function promptFileFormat(fileName: string): PromptFileFormat {
  return fileName.toLowerCase().endsWith('.json') ? 'json' : 'text';
}

export function parsePromptFile(
  content: string,
  format: PromptFileFormat,
  options: PromptFileOptions = {},
): PromptFileResult {
  return format === 'json' ? parseJsonPromptFile(content, options) : parseTextPromptFile(content, options);
}

/** JSON: an array of `{text, category, slug?}` (`prompt` may stand for `text`), or `{prompts: [...]}`. Entries are numbered from 1. */
export function parseJsonPromptFile(content: string, options: PromptFileOptions = {}): PromptFileResult {
  const defaults = checkDefaultCategory(options.defaultCategory);
  if (!defaults.ok) return defaults;

  let parsed: unknown;
  try {
    parsed = JSON.parse(stripByteOrderMark(content));
  } catch (err) {
    return { ok: false, errors: [`not valid JSON: ${(err as Error).message}`] };
  }
  const file = jsonFile.safeParse(parsed);
  if (!file.success) {
    return { ok: false, errors: ['expected an array of prompts or an object {"prompts": [...]} with no other fields'] };
  }
  const entries = Array.isArray(file.data) ? file.data : file.data.prompts;

  const labelled: LabelledPrompt[] = [];
  const errors: string[] = [];
  entries.forEach((raw, i) => {
    const label = `entry ${i + 1}`;
    const entry = jsonEntry.safeParse(raw);
    if (!entry.success) {
      errors.push(...describeIssues(label, entry.error.issues, 'an object with text and category'));
      return;
    }
    const { text, prompt, slug } = entry.data;
    const category = entry.data.category ?? defaults.category;
    const entryErrors: string[] = [];
    if (text !== undefined && prompt !== undefined)
      entryErrors.push(`${label}: prompt: give either text or prompt, not both`);
    if (text === undefined && prompt === undefined) entryErrors.push(`${label}: text: is required`);
    if (category === undefined) entryErrors.push(`${label}: category: is required (no default category was given)`);
    if (entryErrors.length > 0 || category === undefined) {
      errors.push(...entryErrors);
      return;
    }
    const entryText = (text ?? prompt) as string;
    labelled.push({ label, prompt: { slug: slug ?? generatedSlug(category, entryText), category, text: entryText } });
  });
  return finish(labelled, errors, entries.length);
}

/**
 * Text: prompts separated by lines holding only `---`; a block whose first line is `category: <name>` sets its own
 * category. Blank blocks (a leading or trailing `---`) are skipped; the others are numbered from 1 and labelled
 * with the line they start on, so an operator can find them.
 */
export function parseTextPromptFile(content: string, options: PromptFileOptions = {}): PromptFileResult {
  const defaults = checkDefaultCategory(options.defaultCategory);
  if (!defaults.ok) return defaults;

  const blocks: { firstLine: number; lines: string[] }[] = [];
  let current: string[] = [];
  stripByteOrderMark(content)
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === TEXT_BLOCK_SEPARATOR) {
        current = [];
        return;
      }
      if (current.length === 0 && line.trim() === '') return;
      if (current.length === 0) blocks.push({ firstLine: i + 1, lines: current });
      current.push(line);
    });

  const labelled: LabelledPrompt[] = [];
  const errors: string[] = [];
  blocks.forEach(({ firstLine, lines }, i) => {
    const label = `block ${i + 1} (line ${firstLine})`;
    // A block starts at its first non-blank line, so it always has one.
    const [opening = ''] = lines;
    const header = /^category:(.*)$/.exec(opening.trim());
    const category = header ? header[1] : defaults.category;
    const text = (header ? lines.slice(1) : lines).join('\n');
    if (category === undefined) {
      errors.push(`${label}: category: is required (no "category:" line and no default category was given)`);
      return;
    }
    const block = textBlock.safeParse({ category, text });
    if (!block.success) {
      errors.push(...describeIssues(label, block.error.issues, 'a prompt'));
      return;
    }
    const prompt = block.data;
    labelled.push({ label, prompt: { slug: generatedSlug(prompt.category, prompt.text), ...prompt } });
  });
  return finish(labelled, errors, blocks.length);
}

/** The shipped seed: every entry names its slug under `pool/<category>/`, in one of the pool categories. */
export function validatePoolSeed(json: unknown): PromptFileResult {
  if (!Array.isArray(json)) return { ok: false, errors: ['the pool seed must be a JSON array of prompts'] };
  const labelled: LabelledPrompt[] = [];
  const errors: string[] = [];
  json.forEach((raw, i) => {
    const label = `entry ${i + 1}`;
    const entry = seedEntry.safeParse(raw);
    if (entry.success) labelled.push({ label, prompt: entry.data });
    else errors.push(...describeIssues(label, entry.error.issues, 'an object with slug, category and text'));
  });
  return finish(labelled, errors, json.length);
}

interface LabelledPrompt {
  label: string;
  prompt: PoolPrompt;
}

function checkDefaultCategory(
  defaultCategory: string | undefined,
): { ok: true; category?: string } | { ok: false; errors: string[] } {
  if (defaultCategory === undefined) return { ok: true };
  const category = promptCategory.safeParse(defaultCategory);
  // A failed parse has at least one issue; the first says enough about a single word.
  if (!category.success) {
    return {
      ok: false,
      errors: category.error.issues.slice(0, 1).map((issue) => `default category: ${issue.message}`),
    };
  }
  return { ok: true, category: category.data };
}

/** Adds the whole-file checks (not empty, no repeated slug or text) to the per-entry errors. */
function finish(labelled: LabelledPrompt[], errors: string[], entryCount: number): PromptFileResult {
  if (entryCount === 0) return { ok: false, errors: ['the file holds no prompts'] };
  const firstBySlug = new Map<string, string>();
  const firstByText = new Map<string, string>();
  for (const { label, prompt } of labelled) {
    const slugTwin = firstBySlug.get(prompt.slug);
    if (slugTwin) errors.push(`${label}: slug: "${prompt.slug}" is already used by ${slugTwin}`);
    else firstBySlug.set(prompt.slug, label);
    const textTwin = firstByText.get(prompt.text);
    if (textTwin) errors.push(`${label}: text: same text as ${textTwin}`);
    else firstByText.set(prompt.text, label);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, prompts: labelled.map((entry) => entry.prompt) };
}

function describeIssues(label: string, issues: readonly z.core.$ZodIssue[], expected: string): string[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${label}: ${key}: unknown field`);
    if (issue.path.length === 0) return [`${label}: must be ${expected}`];
    return [`${label}: ${issue.path.join('.')}: ${issue.message}`];
  });
}

function stripByteOrderMark(content: string): string {
  return content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
}
