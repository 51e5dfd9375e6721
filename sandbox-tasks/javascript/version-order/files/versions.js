'use strict';
// Ordering release versions for the desktop app's update checker.

function compareVersions(a, b) {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function latest(versions) {
  return [...versions].sort(compareVersions).pop();
}

module.exports = { compareVersions, latest };
