/**
 * The arena's harness for a JavaScript task's hidden tests: imports each of them in this process, after
 * its reporter and guard. The worker runs it in the scoring sandbox as
 *
 *   node --permission flags --test-reporter=<report.mjs> --test-reporter-destination=stdout run.mjs <hidden tests folder> <report fd>
 *
 * with the run's nonce on stdin. Every .js, .cjs and .mjs file in the folder is a test file, in name order.
 */
import './report.mjs';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const testsDir = path.resolve(process.argv[2]);

function testFiles(dir) {
  const files = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...testFiles(file));
    else if (entry.isFile() && /\.(c|m)?js$/.test(entry.name)) files.push(file);
  }
  return files;
}

for (const file of testFiles(testsDir)) {
  try {
    await import(pathToFileURL(file).href);
  } catch (err) {
    // The file's tests never ran; the run goes on with the others, and the reporter counts what ran.
    process.exitCode = 1;
    console.error(`${path.relative(testsDir, file)} could not be loaded: ${err?.name ?? 'error'}`);
  }
}
