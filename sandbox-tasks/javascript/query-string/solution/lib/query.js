'use strict';
// Reads the query part of the links the newsletter tracker receives.

function decode(text) {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A malformed escape is the sender's typo; keeping it as written loses nothing.
    return spaced;
  }
}

function parseQuery(query) {
  const params = {};
  const text = query.startsWith('?') ? query.slice(1) : query;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const key = decode(at === -1 ? pair : pair.slice(0, at));
    const value = at === -1 ? '' : decode(pair.slice(at + 1));
    if (!Object.prototype.hasOwnProperty.call(params, key)) params[key] = value;
    else if (Array.isArray(params[key])) params[key].push(value);
    else params[key] = [params[key], value];
  }
  return params;
}

module.exports = { parseQuery };
