/** Markdown renditions of pages, for clients that send `Accept: text/markdown`. */

/** Inline text with Markdown's active characters escaped. */
export function mdEscape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+!|<>~]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

/** A pipe table; `|` and line breaks inside cells are escaped. Cells that are already Markdown links stay links. */
export function mdTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cell = (v: string | number) => String(v).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  return [`| ${headers.map(cell).join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n') + '\n';
}
