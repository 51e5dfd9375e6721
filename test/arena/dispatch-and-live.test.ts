/**
 * The main arena's dispatch, the pairs it draws, and live battles. Each part is a test file of its own, run in this file's
 * module registry (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, [
  'dispatch-capped',
  'live-offers',
  'live-replacement',
  'live',
  'online',
  'schedule',
  'pairs-backfill',
  'dispatch',
  'pairs',
]);
