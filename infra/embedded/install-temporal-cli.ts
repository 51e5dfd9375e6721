/** Fetches the Temporal CLI into .arena/tools ahead of time (CI runs this before the tests); prints its path. */
import path from 'node:path';
import { findOrInstallTemporalCli } from './temporal-cli';

const toolDir = process.argv[2] ?? path.resolve(__dirname, '..', '..', '.arena', 'tools');

findOrInstallTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH || undefined, toolDir, log: console.log }).then(
  (cliPath) => console.log(cliPath),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
