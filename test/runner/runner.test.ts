/**
 * The runner package as an owner installs it, and its secret end to end. Each part is a test file of
 * its own, run in this file's module registry (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, ['package', 'secret-e2e']);
