#!/usr/bin/env node
// Entry point of `arena`: loads the TypeScript sources through tsx, runs the CLI, exits with its code.
'use strict';
require('tsx/cjs');
const { main } = require('../main.ts');

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`arena: ${err && err.message ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
