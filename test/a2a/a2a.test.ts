/**
 * A2A agents: the mode's own checks, the arena's paths with real SDK agents, the example agent and
 * the Python one. Each part is a test file of its own, run in this file's module registry
 * (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, ['a2a-mode', 'a2a-arena', 'example-agent', 'a2a-python']);
