'use strict';
// Wrapping the plain-text part of e-mails to a line width.

/** `word` in pieces of at most `width` characters. */
function pieces(word, width) {
  const parts = [];
  for (let at = 0; at < word.length; at += width) parts.push(word.slice(at, at + width));
  return parts;
}

function fillParagraph(paragraph, width) {
  const lines = [];
  let line = '';
  const words = paragraph
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((word) => pieces(word, width));
  for (const word of words) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}

function wrap(text, width) {
  if (!(width >= 1)) throw new RangeError(`width must be at least 1, got ${width}`);
  return text
    .split(/\n[ \t]*\n/)
    .map((paragraph) => fillParagraph(paragraph, width))
    .filter((paragraph) => paragraph !== '')
    .join('\n\n');
}

module.exports = { wrap };
