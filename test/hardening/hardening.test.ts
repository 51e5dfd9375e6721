/**
 * Abuse limits, client addresses, data folders, exposure, outages, outbound address checks (SSRF)
 * and scale-out. Each part is a test file of its own, run in this file's module registry
 * (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, [
  'client-address',
  'data-folder',
  'exposure',
  'shared-budgets',
  'abuse-limits',
  'database-outage',
  'long-poll-caps',
  'ssrf',
  'scale-out',
]);
