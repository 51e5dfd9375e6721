/**
 * Sandbox runs: containment, arenas and workers apart, HumanEval tasks, many runs, folders and
 * migrations. Each part is a test file of its own, run in this file's module registry
 * (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, [
  'coding-containment',
  'coding-two-arenas',
  'coding-two-workers',
  'humaneval-sessions',
  'humaneval-import',
  'many-runs',
  'sandbox-folders',
  'coding-times-migration',
  'tamper-reasons-migration',
]);
