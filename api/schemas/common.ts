/** Schema pieces shared by several routes. */
import { z } from 'zod';

export const errorBody = z.object({ detail: z.string() }).describe('Every error: a readable sentence');

export const timestamp = z.string().describe('UTC, ISO 8601 without zone suffix, microseconds');

/** The database serials are 32-bit: no id is larger. */
export const MAX_ID = 2147483647;

export const PATH_ID_RULE = 'must be a whole number written in plain digits, such as 42';

/**
 * A path id, in its one canonical spelling: `42`, never `042`, `0x2a`, `42.0`, `4.2e1` or `+42`
 * (Number() reads them all as 42, so one agent had many addresses). Only plain digits become a
 * number; anything else stays text and fails as one.
 */
export const pathId = z.preprocess(
  (raw) => (typeof raw === 'string' && /^(0|[1-9][0-9]*)$/.test(raw) ? Number(raw) : raw),
  z
    .number({ error: (issue) => (issue.code === 'invalid_type' ? PATH_ID_RULE : undefined) })
    .max(MAX_ID)
    .min(1)
    .int(),
);

export const idParam = z.object({ id: pathId });

/** Response map for the errors a route can answer. */
export function errors(...statuses: Array<400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503>) {
  return Object.fromEntries(statuses.map((s) => [s, errorBody])) as Record<number, typeof errorBody>;
}

/** Optional free text: trimmed; empty or null clears it. Its message is spelled out for the website's forms, which parse without `ruleFor`. */
export function optionalText(max: number) {
  return z
    .string()
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .transform((v) => (v === null || v.trim() === '' ? null : v.trim()));
}
