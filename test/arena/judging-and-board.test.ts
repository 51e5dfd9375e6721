/**
 * Judging and the board: pairs handed out, votes, budgets, the judging window, the leaderboard and
 * judges' standing.
 * Each part is a test file of its own, run in this file's module registry (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, [
  'anonymity',
  'boards',
  'judge-budgets',
  'judging-window',
  'judging',
  'leaderboard-provisional',
  'leaderboard',
  'judge-standing',
  'bought-votes',
]);
