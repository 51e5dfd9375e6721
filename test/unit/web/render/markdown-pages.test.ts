import MarkdownIt from 'markdown-it';
import { mdEscape, mdFenced, mdTable } from '../../../../api/web/render/markdown-pages';

// CommonMark as any Markdown reader would parse it, raw HTML on.
const md = new MarkdownIt('commonmark');
/** The text a reader sees for one paragraph of Markdown: the rendered HTML with its tags removed. */
const seen = (markdown: string) =>
  md
    .render(markdown)
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .trim();

describe('mdEscape', () => {
  it('leaves plain punctuation alone', () => {
    expect(mdEscape('careful-bot (v2)')).toBe('careful-bot (v2)');
    expect(mdEscape('Builds agents: fast, cheap! #1 in C# + Go.')).toBe('Builds agents: fast, cheap! #1 in C# + Go.');
    expect(mdEscape('x > y, 1. 2) {a} a-b a=b')).toBe('x > y, 1. 2) {a} a-b a=b');
  });

  it('escapes what would otherwise be emphasis, code, links or HTML', () => {
    expect(mdEscape('*a* _b_ `c` [d](e) <f> ~~g~~ h|i \\j')).toBe(
      '\\*a\\* \\_b\\_ \\`c\\` \\[d\\](e) \\<f> \\~\\~g\\~\\~ h|i \\\\j',
    );
  });

  it('escapes line-start syntax only at the start of the text', () => {
    expect(mdEscape('# heading')).toBe('\\# heading');
    expect(mdEscape('> quote')).toBe('\\> quote');
    expect(mdEscape('- item')).toBe('\\- item');
    expect(mdEscape('+ item')).toBe('\\+ item');
    expect(mdEscape('1. item')).toBe('1\\. item');
    expect(mdEscape('12) item')).toBe('12\\) item');
    expect(mdEscape('a - b + c > d 1. e')).toBe('a - b + c > d 1. e');
  });

  it('keeps a heading from losing a trailing run of #', () => {
    expect(seen(`# ${mdEscape('issue #')}`)).toBe('issue #');
    expect(seen(`# ${mdEscape('C#')}`)).toBe('C#');
  });

  it.each([
    'careful-bot (v2)',
    '*not emphasis* and _neither_ and **nor this**',
    '[a link](javascript:alert(1)) ![image](http://x/y.png)',
    '<script>alert(1)</script> <http://example.org> &amp; &copy;',
    '# not a heading',
    '> not a quote',
    '- not a list',
    '1. not a list either',
    '`code` ``more``',
    'a\\*b\\',
    'line one\nline two\n\n# third',
    '~~strike~~ | pipe |',
  ])('shows %j to a Markdown reader exactly as written (line breaks as spaces)', (text) => {
    expect(seen(mdEscape(text))).toBe(text.replace(/\r?\n/g, ' ').trim());
  });
});

describe('mdTable', () => {
  it('keeps an escaped cell in its column, pipes included', () => {
    const table = mdTable(['Agent', 'Elo'], [[mdEscape('a|b (v2)'), 1500]]);
    const html = new MarkdownIt().render(table);
    expect(html).toContain('<td>a|b (v2)</td>');
    expect(html).toContain('<td>1500</td>');
  });
});

describe('mdFenced', () => {
  /** The text of each code block a CommonMark reader finds, raw HTML allowed. */
  const codeBlocks = (markdown: string) =>
    [...md.render(markdown).matchAll(/<pre><code[^>]*>([\s\S]*?)<\/code><\/pre>/g)].map((m) =>
      m[1]!
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    );

  it('keeps the lines and the Markdown of the text as written, never escaped', () => {
    const prompt = '# Leap years\n\n- 1900\n- 2000\n\nWrite `is_leap` in `calendar_utils.py`.';
    expect(mdFenced(prompt)).toBe(`\`\`\`text\n${prompt}\n\`\`\``);
    expect(codeBlocks(`**Prompt:**\n\n${mdFenced(prompt)}\n`)).toEqual([`${prompt}\n`]);
  });

  it.each([
    ['a fence of its own', 'before\n```\nafter'],
    ['a longer fence, indented', 'a\n   `````\n<b>bold</b>'],
    ['a tilde fence', '~~~\nx\n~~~'],
    ['raw HTML', '</code></pre><script>alert(1)</script><img src=x onerror=alert(2)>'],
    ['a very long line', `${'y'.repeat(20_000)}`],
    ['nothing at all', ''],
  ])('cannot be left by %s: one block, holding the text, and no element from it', (_case, text) => {
    const rendered = md.render(`${mdFenced(text)}\n\nafter the block`);
    expect(codeBlocks(`${mdFenced(text)}\n`)).toEqual([`${text}\n`]);
    expect(rendered).not.toMatch(/<script|<img|<b>/);
    expect(rendered).toMatch(/<p>after the block<\/p>\n$/);
  });

  it('writes line breaks as \\n whatever the text used', () => {
    expect(mdFenced('a\r\nb\rc')).toBe('```text\na\nb\nc\n```');
  });
});
