/** The languages a coding task may be written in, each with the one runtime its test command starts. */

/** JavaScript stands for the JavaScript/TypeScript family: Node runs no TypeScript without a compiler. */
export const SANDBOX_LANGUAGES = ['python', 'javascript'] as const;

export type SandboxLanguage = (typeof SANDBOX_LANGUAGES)[number];

/** The program a task's test command starts: only what every machine has, standard library only. */
export const LANGUAGE_RUNTIME: Record<SandboxLanguage, string> = {
  python: 'python3',
  javascript: 'node',
};
