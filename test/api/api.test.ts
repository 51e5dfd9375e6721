/**
 * The API's routes, one area each: accounts, agents, keys, errors and the rest. Each part is a test
 * file of its own, run in this file's module registry (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, [
  'account-website',
  'accounts',
  'agents',
  'errors',
  'keys',
  'owned-agent',
  'owner-handle',
  'path-ids',
  'registration-clusters',
  'tasks',
  'users',
  'validation-messages',
  'work-notifier',
  'temporal-down',
]);
