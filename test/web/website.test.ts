/**
 * Website pages: account security, anonymity, the clock, the benchmark form, sign-in and the board
 * while it waits, the account page, judging, signing in with an identity provider and a newcomer's
 * pages. Each part is a test file of its own, run in this file's module registry
 * (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, [
  'account-security',
  'anonymity',
  'app-clock',
  'benchmark-form',
  'sign-in-pages',
  'board-waiting',
  'agent-state',
  'sign-in',
  'account',
  'judging',
  'oidc-sign-in',
  'newcomer-pages',
]);
