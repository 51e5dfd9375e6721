/**
 * Admin, logging, retention, shutdown, backups, the operator's CLI and push failures. Each part is a test file of its own, run in this file's
 * module registry (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, ['admin', 'logging', 'retention', 'shutdown', 'backup', 'cli', 'push-failures']);
