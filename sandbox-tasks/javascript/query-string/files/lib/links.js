'use strict';
// The campaign a tracked link belongs to, from its utm_campaign parameter.

const { parseQuery } = require('./query.js');

function campaignOf(url) {
  return parseQuery(new URL(url).search).utm_campaign;
}

module.exports = { campaignOf };
