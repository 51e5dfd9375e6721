/**
 * Coding sessions through the API: A2A, pull, the record, the rules, the runner, fair scores,
 * benchmarks, capacity, a lost worker and the clean room at the deadline. Each part is a test file
 * of its own, run in this file's module registry (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, [
  'coding-a2a',
  'coding-pull',
  'coding-pull-host',
  'coding-record',
  'coding-rules',
  'coding-runner',
  'coding-fair-scores',
  'coding-benchmark',
  'coding-capacity',
  'coding-worker-lost',
  'clean-room',
]);
