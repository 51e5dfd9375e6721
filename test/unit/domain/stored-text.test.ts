import { storableJson, storableText } from '../../../domain/stored-text';

describe('storableText', () => {
  it('writes NUL as \\0 and a lone surrogate as U+FFFD, and leaves everything else alone', () => {
    expect(storableText('x\u0000y')).toBe('x\\0y');
    expect(storableText('\ud800a')).toBe('\ufffda');
    expect(storableText('a\udc00')).toBe('a\ufffd');
    // A pair is a character (here an emoji), kept whole; control characters other than NUL are text.
    expect(storableText('ok \ud83d\ude00 \u0001\u001b[31m\ttab\r\n')).toBe('ok \ud83d\ude00 \u0001\u001b[31m\ttab\r\n');
    expect(storableText('\udc00\ud800')).toBe('\ufffd\ufffd');
  });

  it('cleans every string of a JSON value, keys too, and keeps its shape', () => {
    expect(storableJson({ 'a\u0000': ['x\u0000', 1, null, true, { b: '\ud800' }], n: 2 })).toEqual({
      'a\\0': ['x\\0', 1, null, true, { b: '\ufffd' }],
      n: 2,
    });
  });
});
