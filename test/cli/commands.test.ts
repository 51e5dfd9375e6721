/**
 * The operator commands for judges, prompts and tasks. Each part is a test file of its own, run in
 * this file's module registry (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, ['judges', 'prompts', 'tasks']);
