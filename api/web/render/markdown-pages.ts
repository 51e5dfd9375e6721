/** Markdown renditions of pages, for clients that send `Accept: text/markdown`. */

/**
 * Inline text shown exactly as written: escapes only what a Markdown reader would take for
 * syntax, so `careful-bot (v2)` stays as it is. Line breaks become spaces (the text stays inline).
 */
export function mdEscape(text: string): string {
  return (
    text
      .replace(/\r?\n/g, ' ')
      // Emphasis, code, links and images (through their brackets), HTML and autolinks, strikethrough.
      // `|` matters only in a table row, and mdTable escapes it there.
      .replace(/[\\`*_[\]<~]/g, (c) => `\\${c}`)
      .replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&')
      // The text may begin a line: there `#`, `>`, `+`, `-` and `1.` / `1)` start blocks.
      .replace(/^(\s*)([#>+-])/, '$1\\$2')
      .replace(/^(\s*\d{1,9})([.)])/, '$1\\$2')
      // In a heading a trailing run of `#` after a space would be dropped as its closing sequence.
      .replace(/(\s)(#+\s*)$/, '$1\\$2')
  );
}

/** A pipe table; `|` and line breaks inside cells are escaped. Cells that are already Markdown links stay links. */
export function mdTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cell = (v: string | number) => String(v).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  return (
    [
      `| ${headers.map(cell).join(' | ')} |`,
      `| ${headers.map(() => '---').join(' | ')} |`,
      ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
    ].join('\n') + '\n'
  );
}

/**
 * A prompt or an answer with its own lines and Markdown, shown as written and inert: a fenced
 * block whose fence is longer than any run of backticks in the text, so no line of it can close
 * the block, and inside which raw HTML is text to every Markdown reader.
 */
export function mdFenced(text: string): string {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text.replace(/\r\n?/g, '\n')}\n${fence}`;
}
