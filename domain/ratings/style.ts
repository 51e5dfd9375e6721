/**
 * The style of an answer, counted as LMArena counts it for its style-controlled leaderboard: its
 * length and its Markdown headers, list items and bold spans, with fenced code left out of the
 * Markdown counts. A battle's style is each count's difference as (a - b) / (a + b + 1).
 */

export interface AnswerStyle {
  /** Characters of the whole answer, code included. */
  length: number;
  headers: number;
  listItems: number;
  bold: number;
}

/** The style features of a battle, in the order the fit's coefficients are reported. */
export const STYLE_FEATURES = ['length', 'headers', 'list_items', 'bold'] as const;
export type StyleFeature = (typeof STYLE_FEATURES)[number];

const FENCED_CODE = /```[^`]*```/g;
const HEADER = /^#{1,6}\s/gm;
const LIST_ITEM = /^\s*(?:\d+\.|[-*+])\s/gm;
const BOLD = /\*\*[^*\n]+\*\*|__[^_\n]+__/g;

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

export function answerStyle(text: string): AnswerStyle {
  const prose = text.replace(FENCED_CODE, '');
  return {
    length: [...text].length,
    headers: count(prose, HEADER),
    listItems: count(prose, LIST_ITEM),
    bold: count(prose, BOLD),
  };
}

/** A battle's style differences, side a against side b, each (a - b) / (a + b + 1), in STYLE_FEATURES order. */
export function styleDifference(a: AnswerStyle, b: AnswerStyle): number[] {
  const ratio = (x: number, y: number) => (x - y) / (x + y + 1);
  return [
    ratio(a.length, b.length),
    ratio(a.headers, b.headers),
    ratio(a.listItems, b.listItems),
    ratio(a.bold, b.bold),
  ];
}
