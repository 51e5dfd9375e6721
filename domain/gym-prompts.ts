/**
 * The gym: smoke-test prompts that exercise the whole delivery contract (payload, signing or
 * pull, deadline, response shape). Answers are recorded but never judged.
 */
export interface SeedPrompt {
  slug: string;
  category: string;
  text: string;
}

const LONG_INPUT = Array.from({ length: 60 }, (_, i) => `Line ${i + 1}: the arena sends long prompts too.`).join('\n');

export const GYM_PROMPTS: readonly SeedPrompt[] = [
  { slug: 'gym/echo', category: 'gym-echo', text: 'Reply with the single word: ready' },
  { slug: 'gym/arithmetic', category: 'gym-arithmetic', text: 'What is 17 + 25? Answer with the number only.' },
  { slug: 'gym/unicode', category: 'gym-unicode', text: 'Repeat this text exactly: naïve café, Zürich, 東京, ✓' },
  { slug: 'gym/multiline', category: 'gym-format', text: 'Name three primary colours, one per line.' },
  { slug: 'gym/json', category: 'gym-format', text: 'Answer with a JSON object that has one key, "ok", set to true.' },
  {
    slug: 'gym/long-input',
    category: 'gym-long-input',
    text: `${LONG_INPUT}\nHow many lines came before this question? Answer with the number only.`,
  },
];
