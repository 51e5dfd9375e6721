/** Counting an answer's style as LMArena does: length, and Markdown headers, list items and bold spans outside code. */
import { answerStyle, styleDifference } from '../../../domain/ratings/style';

describe('answerStyle', () => {
  it('counts headers, list items (ordered and not) and bold spans, line by line', () => {
    const text = [
      '# Title',
      'Some **bold** and __also bold__ text, **not bold',
      '## Part',
      '- one',
      '  * two',
      '+ three',
      '1. first',
      '10. tenth',
      '#not a header',
      '-not an item',
    ].join('\n');
    expect(answerStyle(text)).toEqual({ length: [...text].length, headers: 2, listItems: 5, bold: 2 });
  });

  it('leaves fenced code out of the Markdown counts, not out of the length', () => {
    const code = '```\n# a comment\n- not a list\n**x**\n```';
    expect(answerStyle(`Plain.\n${code}`)).toEqual({ length: 7 + code.length, headers: 0, listItems: 0, bold: 0 });
  });

  it('counts length in characters, not bytes', () => {
    expect(answerStyle('été').length).toBe(3);
  });
});

describe('styleDifference', () => {
  it('is (a - b) / (a + b + 1) for each feature, 0 between equals, and antisymmetric', () => {
    const a = { length: 300, headers: 2, listItems: 0, bold: 1 };
    const b = { length: 100, headers: 0, listItems: 0, bold: 1 };
    expect(styleDifference(a, b)).toEqual([200 / 401, 2 / 3, 0, 0]);
    expect(styleDifference(b, a).map((x) => x + 0)).toEqual([-200 / 401, -2 / 3, 0, 0]);
    expect(styleDifference(a, a)).toEqual([0, 0, 0, 0]);
  });
});
