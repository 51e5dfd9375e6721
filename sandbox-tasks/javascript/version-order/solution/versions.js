'use strict';
// Ordering release versions for the desktop app's update checker (Semantic Versioning 2.0.0 precedence).

function parse(version) {
  const text = version.trim().replace(/^v/, '').split('+')[0];
  const dash = text.indexOf('-');
  const core = dash === -1 ? text : text.slice(0, dash);
  return {
    core: core.split('.').map(Number),
    pre: dash === -1 ? [] : text.slice(dash + 1).split('.'),
  };
}

function compareNumbers(x, y) {
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareIdentifiers(x, y) {
  const xNumeric = /^\d+$/.test(x);
  const yNumeric = /^\d+$/.test(y);
  if (xNumeric && yNumeric) return compareNumbers(Number(x), Number(y));
  if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
  return compareNumbers(x, y);
}

function compareVersions(a, b) {
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const order = compareNumbers(x.core[i] ?? 0, y.core[i] ?? 0);
    if (order !== 0) return order;
  }
  // A release outranks its pre-releases.
  if (x.pre.length === 0 || y.pre.length === 0) return compareNumbers(y.pre.length, x.pre.length);
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const order = compareIdentifiers(x.pre[i], y.pre[i]);
    if (order !== 0) return order;
  }
  return compareNumbers(x.pre.length, y.pre.length);
}

function latest(versions) {
  let best;
  for (const version of versions) {
    if (best === undefined || compareVersions(version, best) > 0) best = version;
  }
  return best;
}

module.exports = { compareVersions, latest };
