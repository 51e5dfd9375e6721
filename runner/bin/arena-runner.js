#!/usr/bin/env node
// The `arena-runner` command. It stays outside dist/ so npm can link it before the package is built.
'use strict';
try {
  require.resolve('../dist/arena-runner.js');
} catch {
  process.stderr.write(
    '[arena-runner] error: not built; run `npm run build --workspace arena-runner` in the project\n',
  );
  process.exit(1);
}
require('../dist/arena-runner.js');
