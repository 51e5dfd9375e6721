/** What the API's refusals are checked with, offline and on the whole stack alike. */

/** Asserts the answer is `{detail}` as JSON, a sentence with no stack trace; returns the sentence. */
export function expectDetail(res: { headers: Record<string, unknown>; json(): unknown }): string {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['detail']);
  expect(typeof body.detail).toBe('string');
  expect(body.detail).not.toMatch(/\n\s+at /);
  return body.detail as string;
}

/** Other spellings that Number() reads as the same id. */
export const idSpellings = (id: number) => [
  `0x${id.toString(16)}`,
  `0${id}`,
  `${id}.0`,
  `${id}e0`,
  `+${id}`,
  `0b${id.toString(2)}`,
  `%20${id}`,
  `${id}%20`,
];
