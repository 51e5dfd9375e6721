/**
 * The languages a coding task may be written in. Each has its one test framework, from its standard
 * library, which the arena's harness runs: unittest for Python, node:test for JavaScript.
 */

/** JavaScript stands for the JavaScript/TypeScript family: Node runs no TypeScript without a compiler. */
export const SANDBOX_LANGUAGES = ['python', 'javascript'] as const;

export type SandboxLanguage = (typeof SANDBOX_LANGUAGES)[number];
