'use strict';
// Reads the query part of the links the newsletter tracker receives.

function parseQuery(query) {
  const params = {};
  for (const pair of query.split('&')) {
    const [key, value] = pair.split('=');
    params[key] = value;
  }
  return params;
}

module.exports = { parseQuery };
