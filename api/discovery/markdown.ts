/** Markdown to HTML for the guides: no raw HTML, headings get ids to link to, links between guides lose `.md`. */
import MarkdownIt from 'markdown-it';
import type { StateCore } from 'markdown-it';

// Bare URLs stay text: only links written as links are links (the tests check each one answers).
const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false });

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-');
}

md.core.ruler.push('guide_heading_ids', (state: StateCore) => {
  const seen = new Map<string, number>();
  state.tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    const base = slugify(state.tokens[i + 1]?.content ?? '') || 'section';
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    token.attrSet('id', n === 0 ? base : `${base}-${n}`);
  });
});

// In the repository a guide links to `pull-mode.md`; on the site the HTML page is `pull-mode`.
const RELATIVE_GUIDE_LINK = /^([a-z0-9-]+)\.md(#.*)?$/;

md.core.ruler.push('guide_links', (state: StateCore) => {
  for (const block of state.tokens) {
    for (const token of block.children ?? []) {
      if (token.type !== 'link_open') continue;
      const match = RELATIVE_GUIDE_LINK.exec(String(token.attrGet('href') ?? ''));
      if (match) token.attrSet('href', `${match[1]}${match[2] ?? ''}`);
    }
  }
});

export function renderMarkdown(source: string): string {
  return md.render(source);
}
