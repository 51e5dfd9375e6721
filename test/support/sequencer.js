/**
 * Jest runs the longest test files first, so that no long file starts last and holds up the run's
 * end. It knows how long a file took from its cache; a fresh clone has none, so here it takes the
 * times recorded in test/support/test-times.json (`npm run test:times` rewrites them). A file in
 * neither goes first, by size (as Jest does), and a file that lists parts (test/support/parts.ts) is
 * small itself, so it weighs what its parts weigh. Otherwise this is Jest's own order: failed first,
 * then slowest, then largest.
 */
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const REPO = path.resolve(__dirname, '..', '..');
const recorded = JSON.parse(fs.readFileSync(path.join(__dirname, 'test-times.json'), 'utf8'));

const sizeOf = (file) => fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;

/**
 * A file's size, or its parts' together when it lists any in `runParts(__dirname, [...])` or
 * `runParts(path.join(__dirname, 'a', 'b'), [...])`.
 */
function weightOf(file) {
  const lists = [
    ...fs
      .readFileSync(file, 'utf8')
      .matchAll(/runParts\((?:__dirname|path\.join\(__dirname((?:, '[^']+')*)\)), \[([^\]]*)\]/g),
  ];
  if (lists.length === 0) return sizeOf(file);
  const parts = lists.flatMap(([, folders = '', names]) => {
    const dir = path.join(path.dirname(file), ...[...folders.matchAll(/'([^']+)'/g)].map((m) => m[1]));
    return [...names.matchAll(/'([^']+)'/g)].map((m) => path.join(dir, `${m[1]}.part.ts`));
  });
  return parts.reduce((sum, part) => sum + sizeOf(part), 0);
}

class PartsAwareSequencer extends Sequencer {
  sort(tests) {
    const weights = new Map(tests.map((test) => [test.path, weightOf(test.path)]));
    for (const test of tests) {
      const seconds = recorded[path.relative(REPO, test.path)];
      test.duration = this.time(test) ?? (seconds === undefined ? undefined : seconds * 1000);
    }
    return tests.sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      if ((a.duration == null) !== (b.duration == null)) return a.duration == null ? -1 : 1;
      if (a.duration != null && b.duration != null) return b.duration - a.duration;
      return weights.get(b.path) - weights.get(a.path);
    });
  }
}

module.exports = PartsAwareSequencer;
