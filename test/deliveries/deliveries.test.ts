/**
 * Deliveries: eager start, pulled answers, the runner end to end, steering, and the push and pull
 * modes' own paths. Each part is a test
 * file of its own, run in this file's module registry (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, ['eager-start', 'pull-answers', 'runner-e2e', 'steer', 'pull', 'push']);
