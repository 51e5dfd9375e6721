/** Finds the links in a Markdown or HTML document that point at this service, as paths to request. */
import MarkdownIt from 'markdown-it';

const parser = new MarkdownIt('default', { html: false, linkify: false });

export function markdownLinks(markdown: string): string[] {
  const hrefs: string[] = [];
  const walk = (tokens: ReturnType<typeof parser.parse>) => {
    for (const token of tokens) {
      if (token.type === 'link_open') hrefs.push(String(token.attrGet('href') ?? ''));
      if (token.children) walk(token.children);
    }
  };
  walk(parser.parse(markdown, {}));
  return hrefs;
}

export function htmlLinks(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

/** The path and query of each link on `origin`, resolved against the page it is on; others are dropped. */
export function pathsOnService(hrefs: string[], pageUrl: string, origin: string): string[] {
  const paths = new Set<string>();
  for (const href of hrefs) {
    const url = new URL(href, pageUrl);
    if (url.origin === origin) paths.add(`${url.pathname}${url.search}`);
  }
  return [...paths];
}
