/**
 * The delivery and vote activities against the database. Each part is a test file of its own, run in
 * this file's module registry (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, ['votes', 'deliveries']);
