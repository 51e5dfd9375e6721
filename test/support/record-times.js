/**
 * Writes test/support/test-times.json (or the file named second), the seconds each test file took,
 * from a Jest result file: `npm run test:times` runs `npm test` with `--json` and then this. The
 * sequencer orders a fresh clone's files by these times, where Jest has none of its own yet.
 */
const fs = require('node:fs');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..');
const [resultFile, outFile = path.join(__dirname, 'test-times.json')] = process.argv.slice(2);
if (!resultFile) {
  console.error('usage: node test/support/record-times.js <jest --json result file> [times file]');
  process.exit(2);
}
const { testResults } = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
const times = Object.fromEntries(
  testResults
    .map((r) => [path.relative(REPO, r.name), Math.round((r.endTime - r.startTime) / 100) / 10])
    .sort(([a], [b]) => a.localeCompare(b)),
);
fs.writeFileSync(outFile, `${JSON.stringify(times, null, 2)}\n`);
console.log(`${path.relative(process.cwd(), outFile)}: ${Object.keys(times).length} files`);
