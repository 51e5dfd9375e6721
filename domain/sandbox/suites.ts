/** Coding tasks come in suites, and a benchmark run is one suite's every active task. */

/** The tasks written for this arena (the catalogue folder's, and any an operator adds). */
export const ARENA_SUITE = 'arena';
/** OpenAI's HumanEval problems, imported by `arena tasks import humaneval`. */
export const HUMANEVAL_SUITE = 'humaneval';

export const CODING_SUITES = [ARENA_SUITE, HUMANEVAL_SUITE] as const;
export type CodingSuite = (typeof CODING_SUITES)[number];
