/**
 * The public vote export's format, one flat record per counted vote, as JSON lines or CSV with
 * the same fields: written by `GET /api/votes`, read back by `arena leaderboard fit`. Both the
 * refresh and the refit turn a record into the fit's vote with `boardVote`, so they fit the same
 * numbers.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { VERDICTS, type Verdict } from '../arena';
import type { BoardVote } from './boards';
import { styleDifference } from './style';

export const EXPORT_FIELDS = [
  'battle_id',
  'prompt_id',
  'category',
  'judge',
  'agent_a_id',
  'agent_b_id',
  'left',
  'winner',
  'voted_at',
  'a_length',
  'a_headers',
  'a_list_items',
  'a_bold',
  'b_length',
  'b_headers',
  'b_list_items',
  'b_bold',
] as const;

const count = z.coerce.number().int().nonnegative();
const id = z.coerce.number().int().positive();

export const exportedVote = z.object({
  battle_id: id,
  prompt_id: id,
  category: z.string().min(1),
  /** A pseudonym, the same for one judge throughout one export; never the judge's account id. */
  judge: z.string().min(1),
  agent_a_id: id,
  agent_b_id: id,
  /** The side shown first (on the left on the website): always `a` here; recorded so the position covariate is explicit. */
  left: z.enum(['a', 'b']),
  winner: z.enum(VERDICTS),
  /** UTC, as every timestamp of the API: ISO 8601 without a zone suffix. */
  voted_at: z.iso.datetime({ local: true }),
  a_length: count,
  a_headers: count,
  a_list_items: count,
  a_bold: count,
  b_length: count,
  b_headers: count,
  b_list_items: count,
  b_bold: count,
});
export type ExportedVote = z.infer<typeof exportedVote>;

/** What the fit needs of a vote, under the export's names. */
export type FittedFields = Pick<
  ExportedVote,
  | 'category'
  | 'agent_a_id'
  | 'agent_b_id'
  | 'a_length'
  | 'a_headers'
  | 'a_list_items'
  | 'a_bold'
  | 'b_length'
  | 'b_headers'
  | 'b_list_items'
  | 'b_bold'
> & { winner: Verdict; left?: 'a' | 'b' };

/**
 * The fit's vote: side a against side b with the style differences. The fit's position covariate
 * is 1 for side a, so a vote whose left side was b is read the other way round.
 */
export function boardVote(v: FittedFields): BoardVote {
  const a = { length: v.a_length, headers: v.a_headers, listItems: v.a_list_items, bold: v.a_bold };
  const b = { length: v.b_length, headers: v.b_headers, listItems: v.b_list_items, bold: v.b_bold };
  if (v.left === 'b') {
    const swapped = v.winner === 'a' ? 'b' : v.winner === 'b' ? 'a' : v.winner;
    return {
      a: v.agent_b_id,
      b: v.agent_a_id,
      outcome: swapped,
      category: v.category,
      features: styleDifference(b, a),
    };
  }
  return { a: v.agent_a_id, b: v.agent_b_id, outcome: v.winner, category: v.category, features: styleDifference(a, b) };
}

/** Records as CSV lines (fields in EXPORT_FIELDS order), after the header line when `header`. */
export function csvLines(votes: readonly ExportedVote[], header: boolean): string {
  return stringify(votes as ExportedVote[], { header, columns: [...EXPORT_FIELDS] });
}

export type ParsedExport = { ok: true; votes: ExportedVote[] } | { ok: false; error: string };

/**
 * Reads an export back line by line, JSON lines or CSV (told apart by the header line CSV starts
 * with), so a file of millions of votes is never one string. The first bad record ends the
 * reading, named by its line; so does a battle that comes twice, named by both lines.
 */
export async function readExport(lines: AsyncIterable<string> | Iterable<string>): Promise<ParsedExport> {
  const header = EXPORT_FIELDS.join(',');
  const votes: ExportedVote[] = [];
  // Each battle's line: a battle counts once, and a file that repeats one would weigh it more.
  const lineOf = new Map<number, number>();
  let csv: boolean | undefined;
  let number = 0;
  for await (const raw of lines) {
    number++;
    const line = raw.trim();
    if (line === '') continue;
    if (csv === undefined) {
      csv = line === header;
      if (csv) continue;
    }
    let record: unknown;
    if (csv) {
      let fields: string[];
      try {
        [fields = []] = parseCsv(line) as string[][];
      } catch (error) {
        return { ok: false, error: `line ${number} is not a CSV record: ${(error as Error).message}` };
      }
      if (fields.length !== EXPORT_FIELDS.length)
        return {
          ok: false,
          error: `line ${number} has ${fields.length} fields; the header names ${EXPORT_FIELDS.length}`,
        };
      record = Object.fromEntries(EXPORT_FIELDS.map((name, k) => [name, fields[k]]));
    } else {
      try {
        record = JSON.parse(line);
      } catch {
        return {
          ok: false,
          error: `line ${number} is not JSON (an export is JSON lines, or CSV with its header line)`,
        };
      }
    }
    const parsed = exportedVote.safeParse(record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { ok: false, error: `line ${number}: ${issue.path.join('.') || 'the record'}: ${issue.message}` };
    }
    const earlier = lineOf.get(parsed.data.battle_id);
    if (earlier !== undefined)
      return {
        ok: false,
        error: `line ${number} repeats battle_id ${parsed.data.battle_id} of line ${earlier}: a battle is one vote`,
      };
    lineOf.set(parsed.data.battle_id, number);
    votes.push(parsed.data);
  }
  return { ok: true, votes };
}
