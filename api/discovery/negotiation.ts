/** Content negotiation for the docs: Markdown only for a client that asks for it at least as much as for HTML. */

interface MediaRange {
  type: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part) => {
      const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const qParam = params.find((p) => p.startsWith('q='));
      const q = qParam ? Number(qParam.slice(2)) : 1;
      return { type, q: Number.isFinite(q) ? q : 0 };
    })
    .filter((range) => range.type !== '');
}

function quality(ranges: MediaRange[], ...types: string[]): number | undefined {
  for (const type of types) {
    const found = ranges.filter((r) => r.type === type);
    if (found.length > 0) return Math.max(...found.map((r) => r.q));
  }
  return undefined;
}

/** True for `Accept: text/markdown` (and lists that rank it at least as high as HTML); wildcards alone mean HTML. */
export function prefersMarkdown(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const markdown = quality(ranges, 'text/markdown') ?? 0;
  const html = quality(ranges, 'text/html', 'text/*', '*/*') ?? 0;
  return markdown > 0 && markdown >= html;
}

/** True when the client ranks HTML above JSON, as a browser does; `*\/*` alone (curl, fetch) means JSON. */
export function prefersHtmlToJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const html = quality(ranges, 'text/html') ?? 0;
  const json = quality(ranges, 'application/json', 'application/*', '*/*') ?? 0;
  return html > json;
}
