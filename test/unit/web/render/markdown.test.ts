import { LINK_REL, escapeHtml, renderMarkdown } from '../../../../api/web/render/markdown';

/** Every tag name the HTML opens, lowercased, so tests can say which elements exist at all. */
function tagNames(html: string): string[] {
  return [...html.matchAll(/<([a-zA-Z][\w-]*)/g)].map((match) => match[1]!.toLowerCase());
}

function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!);
}

describe('escapeHtml', () => {
  it('escapes the five characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
    expect(escapeHtml('plain text')).toBe('plain text');
  });
});

describe('renderMarkdown', () => {
  it('renders ordinary Markdown', () => {
    const html = renderMarkdown(
      '# Title\n\nSome *emphasis*, **strong** and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n',
    );
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<em>emphasis</em>');
    expect(html).toContain('<strong>strong</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toMatch(/<ul>\s*<li>one<\/li>\s*<li>two<\/li>\s*<\/ul>/);
    expect(html).toMatch(/<ol>\s*<li>first<\/li>\s*<li>second<\/li>\s*<\/ol>/);
    expect(html).toContain('<blockquote>');
  });

  it('renders tables and strikethrough', () => {
    const html = renderMarkdown('| a | b |\n| --- | --- |\n| 1 | 2 |\n\n~~gone~~');
    expect(html).toContain('<table>');
    expect(html).toContain('<td>2</td>');
    expect(html).toContain('<s>gone</s>');
  });

  it('escapes script tags, inline and as blocks', () => {
    for (const source of [
      '<script>alert(1)</script>',
      'before <script>alert(1)</script> after',
      '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
    ]) {
      const html = renderMarkdown(source);
      expect(tagNames(html)).not.toContain('script');
      expect(html.toLowerCase()).toContain('&lt;script');
    }
  });

  it('escapes images with event handlers and other raw HTML', () => {
    const sources = [
      '<img src=x onerror=alert(1)>',
      'text <img src="x" onerror="alert(1)"> text',
      '<div onclick="alert(1)">\n\n*still markdown*\n\n</div>',
      '<iframe src="https://evil.example"></iframe>',
      '<a href="javascript:alert(1)">click</a>',
      '<svg onload=alert(1)>',
      '<!-- comment --><style>body{display:none}</style>',
    ];
    for (const source of sources) {
      const html = renderMarkdown(source);
      for (const banned of ['img', 'div', 'iframe', 'svg', 'style', 'script'])
        expect(tagNames(html)).not.toContain(banned);
      // The only anchors left are linkified addresses in the escaped text, never the raw tags' own.
      for (const href of hrefs(html)) expect(href).toMatch(/^https:\/\/evil\.example$/);
    }
    expect(renderMarkdown('<img src=x onerror=alert(1)>')).toBe('<p>&lt;img src=x onerror=alert(1)&gt;</p>\n');
  });

  it('drops links whose address is not http, https or mailto', () => {
    const sources = [
      '[click](javascript:alert(1))',
      '[click](JaVaScRiPt:alert(1))',
      '[click](&#106;avascript:alert(1))',
      '[click]( javascript:alert(1) )',
      '[click](vbscript:msgbox)',
      '[click](data:text/html;base64,PHNjcmlwdD4=)',
      '[click](file:///etc/passwd)',
      '[click](/relative/path)',
      '<javascript:alert(1)>',
      '[click][ref]\n\n[ref]: javascript:alert(1)',
    ];
    for (const source of sources) {
      const html = renderMarkdown(source);
      expect(tagNames(html)).not.toContain('a');
      expect(html).toContain('click'.slice(0, source.startsWith('<') ? 0 : 5));
    }
  });

  it('keeps http, https and mailto links, marked nofollow', () => {
    const html = renderMarkdown(
      '[site](https://example.com/a?b=1&c=2 "Title") <http://example.org> [mail](mailto:a@example.com) and https://linkified.example/path',
    );
    expect(hrefs(html)).toEqual([
      'https://example.com/a?b=1&amp;c=2',
      'http://example.org',
      'mailto:a@example.com',
      'https://linkified.example/path',
    ]);
    expect(html.match(/<a /g)).toHaveLength(4);
    expect(html.match(new RegExp(`rel="${LINK_REL}"`, 'g'))).toHaveLength(4);
    expect(html).toContain('title="Title"');
    expect(LINK_REL).toBe('nofollow noopener noreferrer');
  });

  it('escapes quotes in link addresses and titles', () => {
    const html = renderMarkdown('[x](https://example.com/"onmouseover="alert(1) "a\\"b")');
    expect(html).not.toMatch(/"\s*onmouseover=/);
    expect(tagNames(html)).toEqual(['p', 'a']);
  });

  it('renders images as links to the image, never as img elements', () => {
    const html = renderMarkdown('![a chart](https://images.example/chart.png "Weekly")');
    expect(tagNames(html)).not.toContain('img');
    const anchor = html.match(/<a [^>]*>a chart<\/a>/)?.[0] ?? '';
    for (const attribute of [
      'href="https://images.example/chart.png"',
      'class="image-link"',
      `rel="${LINK_REL}"`,
      'title="Weekly"',
    ]) {
      expect(anchor).toContain(attribute);
    }
  });

  it('names an image without alt text by its address, and drops unsafe or nested images to their text', () => {
    expect(renderMarkdown('![](https://images.example/x.png)')).toContain('>https://images.example/x.png</a>');
    const unsafe = renderMarkdown('![pic](javascript:alert(1)) ![pixel](data:image/png;base64,AAAA)');
    expect(tagNames(unsafe)).toEqual(['p']);
    const nested = renderMarkdown('[![badge](https://images.example/b.svg)](https://example.com)');
    expect(tagNames(nested)).toEqual(['p', 'a']);
    expect(hrefs(nested)).toEqual(['https://example.com']);
    expect(nested).toContain('>badge</a>');
  });

  it.each([
    ['tool_call', 'tool call'],
    ['tool_result', 'tool result'],
    ['system', 'system'],
    ['thinking', 'thinking'],
  ])('renders a %s block as a collapsed trace with escaped content', (kind, label) => {
    const html = renderMarkdown(
      `Before.\n\n\`\`\`${kind}\n{"html": "<script>alert('x')</script>", "a": 1 & 2}\n\`\`\`\n\nAfter.`,
    );
    expect(html).toContain(
      `<details class="trace trace-${kind}"><summary>${label}</summary><pre><code>` +
        '{&quot;html&quot;: &quot;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;, &quot;a&quot;: 1 &amp; 2}\n</code></pre></details>',
    );
    expect(tagNames(html)).not.toContain('script');
    expect(html).toContain('<p>After.</p>');
  });

  it('renders other fenced code escaped, with its language as a class', () => {
    expect(renderMarkdown('```python\nif a < b and c > d: print("&")\n```')).toBe(
      '<pre><code class="language-python">if a &lt; b and c &gt; d: print(&quot;&amp;&quot;)\n</code></pre>\n',
    );
    expect(renderMarkdown('```\nplain\n```')).toBe('<pre><code>plain\n</code></pre>\n');
    expect(renderMarkdown('```"><script>\nx\n```')).not.toMatch(/<script/);
    expect(renderMarkdown('    indented <b>\n')).toBe('<pre><code>indented &lt;b&gt;\n</code></pre>\n');
  });

  it('renders very long input', () => {
    const paragraph = 'Some **bold** text with `code`, a [link](https://example.com) and <tags> & entities.\n\n';
    const mixed = paragraph.repeat(Math.ceil(100_000 / paragraph.length));
    expect(mixed.length).toBeGreaterThanOrEqual(100_000);
    const html = renderMarkdown(mixed);
    expect(html.match(/<p>/g)!.length).toBe(Math.ceil(100_000 / paragraph.length));

    // Pathological shapes: one huge line, deep nesting and many unclosed delimiters.
    const hostile = [
      'x'.repeat(100_000),
      '>'.repeat(100_000),
      '['.repeat(50_000) + ']'.repeat(50_000),
      '*a '.repeat(33_000),
      '```tool_call\n' + '<'.repeat(100_000),
    ];
    for (const source of hostile) expect(typeof renderMarkdown(source)).toBe('string');
  });

  it('renders empty input as nothing', () => {
    expect(renderMarkdown('')).toBe('');
  });
});
