import { createHash } from 'node:crypto';
import {
  generatedSlug,
  parseJsonPromptFile,
  parsePromptFile,
  parseTextPromptFile,
  promptFileFormat,
  type PromptFileResult,
} from '../../../domain/prompt-files';

function errorsOf(result: PromptFileResult): string[] {
  if (result.ok) throw new Error(`expected errors, got ${result.prompts.length} prompts`);
  return result.errors;
}

const hash8 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

describe('generatedSlug', () => {
  it('is pool/<category>/ and the first 8 hex digits of the text hash', () => {
    expect(generatedSlug('math', 'What is 2 + 2?')).toBe(`pool/math/${hash8('What is 2 + 2?')}`);
    expect(generatedSlug('math', 'What is 2 + 2?')).toMatch(/^pool\/math\/[0-9a-f]{8}$/);
  });
});

describe('promptFileFormat', () => {
  it('reads .json as JSON and everything else as text', () => {
    expect(promptFileFormat('pool.JSON')).toBe('json');
    expect(promptFileFormat('pool.txt')).toBe('text');
    expect(promptFileFormat('prompts')).toBe('text');
  });
});

describe('parseJsonPromptFile', () => {
  it('accepts an array of entries, keeping given slugs and trimming texts', () => {
    const content = JSON.stringify([
      { text: '  Explain recursion.  ', category: 'coding', slug: 'pool/coding/recursion' },
      { text: 'Prove that 2 is prime.', category: 'math' },
    ]);
    expect(parseJsonPromptFile(content)).toEqual({
      ok: true,
      prompts: [
        { slug: 'pool/coding/recursion', category: 'coding', text: 'Explain recursion.' },
        { slug: `pool/math/${hash8('Prove that 2 is prime.')}`, category: 'math', text: 'Prove that 2 is prime.' },
      ],
    });
  });

  it('accepts a {prompts: [...]} wrapper, prompt as an alias of text, and a default category', () => {
    const content = JSON.stringify({
      prompts: [{ prompt: 'Name a prime.' }, { text: 'Write a haiku.', category: 'writing' }],
    });
    const result = parseJsonPromptFile(content, { defaultCategory: 'math' });
    expect(result).toEqual({
      ok: true,
      prompts: [
        { slug: `pool/math/${hash8('Name a prime.')}`, category: 'math', text: 'Name a prime.' },
        { slug: `pool/writing/${hash8('Write a haiku.')}`, category: 'writing', text: 'Write a haiku.' },
      ],
    });
  });

  it('accepts operator categories outside the pool list', () => {
    expect(
      parseJsonPromptFile(JSON.stringify([{ text: 'Translate "hello".', category: 'translation-2' }])),
    ).toMatchObject({ ok: true });
  });

  it.each([
    [
      'a bad category',
      [{ text: 'x' }, { text: 'y' }, { text: 'z', category: 'Coding' }],
      "entry 3: category: must be lower-case letters, digits or '-'",
    ],
    ['a category starting with a digit', [{ text: 'x', category: '1st' }], 'entry 1: category: must be lower-case'],
    [
      'a category over 40 characters',
      [{ text: 'x', category: 'a'.repeat(41) }],
      'entry 1: category: must be lower-case',
    ],
    ['a category that is not a string', [{ text: 'x', category: 7 }], 'entry 1: category: must be a string'],
    ['an empty text', [{ text: '   ', category: 'math' }], 'entry 1: text: must not be empty'],
    ['an empty prompt alias', [{ prompt: '', category: 'math' }], 'entry 1: prompt: must not be empty'],
    [
      'a text over 20,000 characters',
      [{ text: 'x'.repeat(20_001), category: 'math' }],
      'entry 1: text: must be at most 20,000 characters',
    ],
    ['a text that is not a string', [{ text: ['x'], category: 'math' }], 'entry 1: text: must be a string'],
    ['no text at all', [{ category: 'math' }], 'entry 1: text: is required'],
    [
      'both text and prompt',
      [{ text: 'x', prompt: 'y', category: 'math' }],
      'entry 1: prompt: give either text or prompt, not both',
    ],
    [
      'a bad slug',
      [{ text: 'x', category: 'math', slug: 'Pool/Math' }],
      'entry 1: slug: must be lower-case letters, digits',
    ],
    ['a slug over 100 characters', [{ text: 'x', category: 'math', slug: 'a'.repeat(101) }], 'entry 1: slug: must be'],
    ['an unknown field', [{ text: 'x', category: 'math', catgory: 'math' }], 'entry 1: catgory: unknown field'],
    [
      'an entry that is not an object',
      [{ text: 'x', category: 'math' }, 'y'],
      'entry 2: must be an object with text and category',
    ],
    [
      'a duplicate slug',
      [
        { text: 'x', category: 'math', slug: 's' },
        { text: 'y', category: 'math', slug: 's' },
      ],
      'entry 2: slug: "s" is already used by entry 1',
    ],
    [
      'a duplicate text',
      [
        { text: 'x', category: 'math' },
        { text: ' x ', category: 'coding' },
      ],
      'entry 2: text: same text as entry 1',
    ],
  ])('rejects %s, naming the entry and field', (_case, entries, message) => {
    const errors = errorsOf(parseJsonPromptFile(JSON.stringify(entries), { defaultCategory: 'math' }));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.startsWith(message)).toBe(true);
  });

  it('requires a category when no default is given', () => {
    expect(errorsOf(parseJsonPromptFile(JSON.stringify([{ text: 'x', category: 'math' }, { text: 'y' }])))).toEqual([
      'entry 2: category: is required (no default category was given)',
    ]);
  });

  it('reports every bad entry, not only the first', () => {
    const errors = errorsOf(
      parseJsonPromptFile(
        JSON.stringify([
          { text: '', category: 'math' },
          { text: 'ok', category: 'math' },
          { text: 'z', category: 'X' },
        ]),
      ),
    );
    expect(errors).toEqual([expect.stringMatching(/^entry 1: text:/), expect.stringMatching(/^entry 3: category:/)]);
  });

  it.each([
    ['malformed JSON', '[{"text": ', /^not valid JSON: /],
    [
      'a bare object',
      '{"text": "x", "category": "math"}',
      /^expected an array of prompts or an object \{"prompts": \[\.\.\.\]\}/,
    ],
    ['a wrapper with other fields', '{"prompts": [], "extra": 1}', /^expected an array/],
    ['an empty array', '[]', /^the file holds no prompts$/],
  ])('rejects %s as a whole file', (_case, content, message) => {
    expect(errorsOf(parseJsonPromptFile(content))).toEqual([expect.stringMatching(message)]);
  });

  it('rejects an invalid default category before reading entries', () => {
    expect(errorsOf(parseJsonPromptFile('[{"text": "x"}]', { defaultCategory: 'Math' }))).toEqual([
      expect.stringMatching(/^default category: must be lower-case/),
    ]);
  });
});

describe('parseTextPromptFile', () => {
  it('splits blocks on --- lines, reading an optional category line and falling back to the default', () => {
    const content = [
      'What is 7 x 8?',
      '---',
      'category: writing',
      'Write a limerick about a tortoise.',
      '',
      'Make it rhyme.',
      '  ---  ',
      'category: coding',
      '  Reverse a list in Python.  ',
      '---',
      '',
    ].join('\r\n');
    expect(parseTextPromptFile(content, { defaultCategory: 'math' })).toEqual({
      ok: true,
      prompts: [
        { slug: `pool/math/${hash8('What is 7 x 8?')}`, category: 'math', text: 'What is 7 x 8?' },
        {
          slug: `pool/writing/${hash8('Write a limerick about a tortoise.\n\nMake it rhyme.')}`,
          category: 'writing',
          text: 'Write a limerick about a tortoise.\n\nMake it rhyme.',
        },
        {
          slug: `pool/coding/${hash8('Reverse a list in Python.')}`,
          category: 'coding',
          text: 'Reverse a list in Python.',
        },
      ],
    });
  });

  it('needs no default when every block names its category, and skips blank blocks', () => {
    const result = parseTextPromptFile(
      '---\ncategory: math\nAdd 2 and 3.\n---\n\n---\ncategory: safety\nIs it safe to mix bleach and ammonia?\n',
    );
    expect(result.ok && result.prompts.map((p) => p.category)).toEqual(['math', 'safety']);
  });

  it('keeps a --- that is part of a longer line inside the text', () => {
    const result = parseTextPromptFile('Explain what ---- means in a diff.', { defaultCategory: 'coding' });
    expect(result.ok && result.prompts[0]?.text).toBe('Explain what ---- means in a diff.');
  });

  it.each([
    [
      'a missing category with no default',
      'category: math\nAdd.\n---\nSubtract.',
      undefined,
      'block 2 (line 4): category: is required',
    ],
    [
      'a bad category line',
      'Add.\n---\ncategory: Math Stuff\nSubtract.',
      'math',
      "block 2 (line 3): category: must be lower-case letters, digits or '-'",
    ],
    ['an empty category line', 'category:\nAdd.', 'math', 'block 1 (line 1): category: must be lower-case'],
    [
      'a block with only a category line',
      'Add.\n---\ncategory: math\n---\nSubtract.',
      'math',
      'block 2 (line 3): text: must not be empty',
    ],
    [
      'a text over 20,000 characters',
      'x'.repeat(20_001),
      'math',
      'block 1 (line 1): text: must be at most 20,000 characters',
    ],
    [
      'a duplicate text',
      'Add.\n---\nSubtract.\n---\n  Add.  ',
      'math',
      'block 3 (line 5): text: same text as block 1 (line 1)',
    ],
  ])('rejects %s, naming the block and field', (_case, content, defaultCategory, message) => {
    const errors = errorsOf(parseTextPromptFile(content, { defaultCategory }));
    expect(errors.some((e) => e.startsWith(message))).toBe(true);
  });

  it('reports both the slug and the text when a block repeats another in the same category', () => {
    expect(errorsOf(parseTextPromptFile('category: math\nAdd.\n---\ncategory: math\nAdd.'))).toEqual([
      `block 2 (line 4): slug: "pool/math/${hash8('Add.')}" is already used by block 1 (line 1)`,
      'block 2 (line 4): text: same text as block 1 (line 1)',
    ]);
  });

  it('rejects a file with no prompts', () => {
    expect(errorsOf(parseTextPromptFile('\n---\n\n---\n', { defaultCategory: 'math' }))).toEqual([
      'the file holds no prompts',
    ]);
  });
});

describe('parsePromptFile', () => {
  it('dispatches on the format', () => {
    expect(parsePromptFile('[{"prompt": "Add."}]', 'json', { defaultCategory: 'math' })).toMatchObject({
      ok: true,
      prompts: [{ text: 'Add.' }],
    });
    expect(parsePromptFile('[{"prompt": "Add."}]', 'text', { defaultCategory: 'math' })).toMatchObject({
      ok: true,
      prompts: [{ text: '[{"prompt": "Add."}]' }],
    });
  });
});
