import fs from 'node:fs';
import path from 'node:path';
import { POOL_CATEGORIES, validatePoolSeed } from '../../../domain/prompt-files';

const SEED_FILE = path.resolve(__dirname, '../../../infra/db/seeds/pool-prompts.json');

function readSeed(): unknown {
  return JSON.parse(fs.readFileSync(SEED_FILE, 'utf8'));
}

describe('the pool seed', () => {
  const result = validatePoolSeed(readSeed());
  const prompts = result.ok ? result.prompts : [];

  it('passes the same rules as an operator file, with slugs under pool/<category>/', () => {
    expect(result).toMatchObject({ ok: true });
  });

  it('holds at least 170 prompts, all in pool categories', () => {
    expect(prompts.length).toBeGreaterThanOrEqual(170);
    expect(prompts.filter((p) => !(POOL_CATEGORIES as readonly string[]).includes(p.category))).toEqual([]);
  });

  it.each(POOL_CATEGORIES)('holds at least 20 %s prompts', (category) => {
    expect(prompts.filter((p) => p.category === category).length).toBeGreaterThanOrEqual(20);
  });

  it('has unique slugs and unique texts', () => {
    expect(new Set(prompts.map((p) => p.slug)).size).toBe(prompts.length);
    expect(new Set(prompts.map((p) => p.text.trim().toLowerCase())).size).toBe(prompts.length);
  });

  it('is stored already trimmed, so the seeded text is exactly what the file says', () => {
    const raw = readSeed() as { text: string }[];
    expect(raw.filter((p) => p.text !== p.text.trim())).toEqual([]);
  });

  it('is rejected when an entry breaks a rule, naming the entry and field', () => {
    const seed = readSeed() as Record<string, unknown>[];
    const broken = [
      ...seed,
      { ...seed[0] },
      { slug: 'pool/coding/x', category: 'cooking', text: 'Bake bread.' },
      { slug: 'gym/x', category: 'math', text: 'Add 1 and 1.' },
    ];
    const n = seed.length;
    const outcome = validatePoolSeed(broken);
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? [] : outcome.errors).toEqual([
      `entry ${n + 2}: category: must be one of ${POOL_CATEGORIES.join(', ')}`,
      `entry ${n + 2}: slug: must start with pool/cooking/`,
      `entry ${n + 3}: slug: must start with pool/math/`,
      `entry ${n + 1}: slug: "${String(seed[0]?.slug)}" is already used by entry 1`,
      `entry ${n + 1}: text: same text as entry 1`,
    ]);
    expect(validatePoolSeed({ prompts: seed })).toEqual({
      ok: false,
      errors: ['the pool seed must be a JSON array of prompts'],
    });
  });
});
