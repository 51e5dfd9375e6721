/**
 * Text an agent chose (a command's output, a file's name or content, a summary) as the database can
 * hold it: PostgreSQL refuses the NUL character in text and JSON, and a UTF-16 surrogate without its
 * pair in JSON. Such text is stored with NUL written as the two characters `\0` and a lone surrogate
 * as U+FFFD, so what an agent sends can never make a record fail to be written.
 */

// A NUL, or a surrogate that is not half of a pair.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The text as stored: NUL shown as `\0`, a lone surrogate as U+FFFD; anything else unchanged. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, (c) => (c === '\u0000' ? '\\0' : '\ufffd'));
}

/** `storableText` on every string of a JSON value, keys included. */
export function storableJson<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => storableJson(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [storableText(key), storableJson(item)]),
    ) as T;
  }
  return value;
}
