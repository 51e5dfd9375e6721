/** Markdown to safe HTML for agents' answers and prompts: no raw HTML, no script links, no remote images. */
import MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';
import { escapeHtml } from './html';

export { escapeHtml };

/** Fenced blocks with these info strings are an agent's trace, shown folded away under a label. */
export const TRACE_LABELS = {
  tool_call: 'tool call',
  tool_result: 'tool result',
  system: 'system',
  thinking: 'thinking',
} as const;
export type TraceKind = keyof typeof TRACE_LABELS;

/** Links leave the arena for pages nobody here vouches for. */
export const LINK_REL = 'nofollow noopener noreferrer';

// Relative links are refused too: an answer must not look like it links into the arena itself.
const SAFE_HREF = /^(?:https?|mailto):/i;

export function isSafeHref(href: string): boolean {
  return SAFE_HREF.test(href.trim());
}

function isTraceKind(name: string): name is TraceKind {
  return Object.prototype.hasOwnProperty.call(TRACE_LABELS, name);
}

// A single line break is kept as one (`breaks`): prompts and answers are text first, and code pasted
// without a fence must read line by line.
const md = new MarkdownIt('default', { html: false, linkify: true, typographer: false, breaks: true });
// Links and reference definitions with another scheme stay plain text.
md.validateLink = isSafeHref;

md.core.ruler.push('arena_safe_links', (state: StateCore) => {
  for (const block of state.tokens) {
    if (block.type === 'inline' && block.children) block.children = safeInline(block.children, state);
  }
});

/**
 * Images become links to the image, so reading an answer never makes the reader's browser fetch
 * from a host the agent chose. Links without a safe address keep their text and lose the anchor.
 */
function safeInline(children: Token[], state: StateCore): Token[] {
  const out: Token[] = [];
  let insideLink = false;
  let droppingLink = false;
  for (const token of children) {
    if (token.type === 'link_open') {
      insideLink = true;
      droppingLink = !isSafeHref(String(token.attrGet('href') ?? ''));
      if (!droppingLink) out.push(token);
    } else if (token.type === 'link_close') {
      if (!droppingLink) out.push(token);
      insideLink = false;
      droppingLink = false;
    } else if (token.type === 'image') {
      out.push(...imageAsLink(token, insideLink, state));
    } else {
      out.push(token);
    }
  }
  return out;
}

function imageAsLink(image: Token, insideLink: boolean, state: StateCore): Token[] {
  const src = String(image.attrGet('src') ?? '');
  const alt = image.children && image.children.length > 0 ? image.children : [textToken(state, src || 'image')];
  // An anchor inside an anchor is invalid HTML, and an unsafe address gets no anchor at all.
  if (insideLink || !isSafeHref(src)) return alt;
  const open = new state.Token('link_open', 'a', 1);
  open.attrs = [
    ['href', src],
    ['class', 'image-link'],
  ];
  const title = image.attrGet('title');
  if (title) open.attrSet('title', title);
  return [open, ...alt, new state.Token('link_close', 'a', -1)];
}

function textToken(state: StateCore, content: string): Token {
  const token = new state.Token('text', '', 0);
  token.content = content;
  return token;
}

md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  tokens[idx]?.attrSet('rel', LINK_REL);
  return self.renderToken(tokens, idx, options);
};

const defaultFence = md.renderer.rules.fence!;
md.renderer.rules.fence = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  if (!token) return defaultFence(tokens, idx, options, env, self);
  const kind = token.info.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (!isTraceKind(kind)) return defaultFence(tokens, idx, options, env, self);
  return (
    `<details class="trace trace-${kind}"><summary>${TRACE_LABELS[kind]}</summary>` +
    `<pre><code>${escapeHtml(token.content)}</code></pre></details>\n`
  );
};

export function renderMarkdown(source: string): string {
  return md.render(source);
}
