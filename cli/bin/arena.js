#!/usr/bin/env node
// Entry point of `arena`: runs the compiled CLI (`npm run build` writes dist/) and exits with its code once its output is out.
'use strict';
const path = require('node:path');

const compiled = path.join(__dirname, '..', '..', 'dist', 'cli', 'main.js');
let main;
let exitAfterOutput;
try {
  ({ main, exitAfterOutput } = require(compiled));
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes(compiled)) {
    process.stderr.write(`arena: ${compiled} is missing; run \`npm run build\` first (\`npm run arena\` does)\n`);
    process.exit(1);
  }
  throw err;
}

main(process.argv.slice(2)).then(
  (code) => exitAfterOutput(code),
  (err) => {
    process.stderr.write(`arena: ${err && err.message ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
