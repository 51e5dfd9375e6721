// The anonymity tests look for a prompt on the pages by findableText: it must be on both renderings of every pool prompt.
import fs from 'node:fs';
import path from 'node:path';
import { mdFenced } from '../../../../api/web/render/markdown-pages';
import { renderMarkdown } from '../../../../api/web/render/markdown';
import { findableText } from '../../../web/findable-text';

const pool = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '../../../../infra/db/seeds/pool-prompts.json'), 'utf8'),
) as { slug: string; text: string }[];

it.each(pool.map((prompt) => [prompt.slug, prompt.text]))(
  'finds pool prompt %s on the HTML page and in its Markdown',
  (_slug, text) => {
    const findable = findableText(text);
    // Long enough to single the prompt out.
    expect(findable.length).toBeGreaterThanOrEqual(30);
    expect(renderMarkdown(text)).toContain(findable);
    expect(mdFenced(text)).toContain(findable);
  },
);
