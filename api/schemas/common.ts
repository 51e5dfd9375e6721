/** Schema pieces shared by several routes. */
import { z } from 'zod';

export const errorBody = z.object({ detail: z.string() }).describe('Every error: a readable sentence');

export const timestamp = z.string().describe('UTC, ISO 8601 without zone suffix, microseconds');

/** Path ids are positive 32-bit integers (the database serials). */
export const idParam = z.object({ id: z.coerce.number().int().positive().max(2147483647) });

/** Response map for the errors a route can answer. */
export function errors(...statuses: Array<400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503>) {
  return Object.fromEntries(statuses.map((s) => [s, errorBody])) as Record<number, typeof errorBody>;
}

/** Optional free text: trimmed; empty or null clears it. */
export function optionalText(max: number) {
  return z
    .string()
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .transform((v) => (v === null || v.trim() === '' ? null : v.trim()));
}
