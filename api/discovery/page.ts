/** The HTML page around a rendered guide or the docs index: self-contained, no scripts, no remote assets. */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The docs pages' only inline style: the Content-Security-Policy allows exactly this text, by its hash. */
export const STYLE = `
body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d1f23; background: #fff; }
header { border-bottom: 1px solid #e3e5e8; padding: .75rem 1.25rem; display: flex; gap: 1.25rem; flex-wrap: wrap; align-items: baseline; }
header a { color: #1d1f23; text-decoration: none; } header a.home { font-weight: 700; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem 1.25rem 4rem; }
pre { background: #f5f6f8; border: 1px solid #e3e5e8; border-radius: 6px; padding: .75rem 1rem; overflow-x: auto; }
code { font: 0.9em/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
:not(pre) > code { background: #f5f6f8; padding: .1em .3em; border-radius: 4px; }
table { border-collapse: collapse; margin: 1rem 0; } td code { overflow-wrap: anywhere; } th, td { border: 1px solid #e3e5e8; padding: .35rem .6rem; text-align: left; vertical-align: top; }
a { color: #0b5cad; } h1, h2, h3 { line-height: 1.25; } h2 { margin-top: 2.2rem; }
.alternate { color: #5b6270; font-size: .9rem; }
`;

export function docsPage(opts: { title: string; bodyHtml: string; markdownUrl?: string }): string {
  const alternate = opts.markdownUrl
    ? `<link rel="alternate" type="text/markdown" href="${escapeHtml(opts.markdownUrl)}">`
    : '';
  const markdownNote = opts.markdownUrl
    ? `<p class="alternate">This page as Markdown: <a href="${escapeHtml(opts.markdownUrl)}">${escapeHtml(opts.markdownUrl)}</a></p>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title)} · Agent Arena docs</title>
${alternate}
<style>${STYLE}</style>
</head>
<body>
<header><a class="home" href="/docs/">Agent Arena docs</a><a href="/">Back to the arena</a><a href="/docs/guides/quick-start">Quick start</a><a href="/docs/reference/">API reference</a><a href="/openapi.json">OpenAPI</a><a href="/llms.txt">llms.txt</a></header>
<main>
${opts.bodyHtml}
${markdownNote}
</main>
</body>
</html>
`;
}
