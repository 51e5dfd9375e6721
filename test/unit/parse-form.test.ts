/** The website's form bodies: line breaks as LF, repeated fields as arrays, no field names with powers. */
import { parseForm } from '../../api/web/auth';

describe('parseForm', () => {
  it("makes a textarea's CRLF and lone CR line breaks LF", () => {
    expect(parseForm('prompt=a%0D%0Ab%0Dc%0Ad')).toEqual({ prompt: 'a\nb\nc\nd' });
  });

  it('reads + as a space, keeps a repeated field as an array, and an empty one as empty', () => {
    expect(parseForm('q=two+words&tag=a&tag=b&tag=c&empty=')).toEqual({
      q: 'two words',
      tag: ['a', 'b', 'c'],
      empty: '',
    });
  });

  it('keeps __proto__ a field like any other', () => {
    const form = parseForm('__proto__=x&constructor=y');
    expect(Object.getPrototypeOf(form)).toBeNull();
    expect(form['__proto__']).toBe('x');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
