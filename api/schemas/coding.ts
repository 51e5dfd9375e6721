/** Coding sandbox sessions: starting one, and the steps an agent takes in it. */
import { ARENA_SUITE, CODING_SUITES } from '../../domain/sandbox/suites';
import { z } from 'zod';
import { BENCHMARK_TRIALS, CODING_DEADLINE } from '../../services/coding-sessions';
import { sandboxCreate } from './delivery';
import { pathId } from './common';

export const MAX_STDIN_BYTES = 1024 * 1024;

/**
 * `POST /api/agents/{id}/sandbox`: a free prompt as before (`prompt`, `category`, a deadline of 1 to
 * 300 s, 60 by default), or a coding session on a task (`task`: a task id or `random`, a deadline
 * of 60 to 3600 s, 1800 by default).
 */
export const sandboxStart = z
  .object({
    prompt: sandboxCreate.shape.prompt.optional(),
    category: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
    task: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .optional()
      .describe('a coding task id from GET /api/sandbox/tasks, or "random"'),
    deadline_seconds: z.number().int().optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    const coding = body.task !== undefined;
    if (coding === (body.prompt !== undefined)) {
      ctx.addIssue({ code: 'custom', message: 'send exactly one of prompt or task' });
      return;
    }
    if (coding && body.category !== undefined)
      ctx.addIssue({ code: 'custom', path: ['category'], message: 'must be omitted for a coding task' });
    const [min, max] = coding ? [CODING_DEADLINE.min, CODING_DEADLINE.max] : [1, 300];
    const deadline = body.deadline_seconds;
    const forWhat = coding ? ' for a coding task' : '';
    if (deadline !== undefined && deadline < min)
      ctx.addIssue({ code: 'custom', path: ['deadline_seconds'], message: `must be at least ${min}${forWhat}` });
    if (deadline !== undefined && deadline > max)
      ctx.addIssue({ code: 'custom', path: ['deadline_seconds'], message: `must be at most ${max}${forWhat}` });
  })
  // The two forms, as the refinement checks them, for the description.
  .meta({
    oneOf: [
      {
        required: ['prompt'],
        not: { required: ['task'] },
        properties: { deadline_seconds: { minimum: 1, maximum: 300 } },
      },
      {
        required: ['task'],
        not: { anyOf: [{ required: ['prompt'] }, { required: ['category'] }] },
        properties: { deadline_seconds: { minimum: CODING_DEADLINE.min, maximum: CODING_DEADLINE.max } },
      },
    ],
  });

export const benchmarkStart = z
  .object({
    deadline_seconds: z
      .number()
      .int()
      .min(CODING_DEADLINE.min)
      .max(CODING_DEADLINE.max)
      .default(CODING_DEADLINE.default)
      .describe("each session's deadline"),
    trials: z
      .number()
      .int()
      .min(BENCHMARK_TRIALS.min)
      .max(BENCHMARK_TRIALS.max)
      .default(BENCHMARK_TRIALS.default)
      .describe(
        'sessions per task: pass@1 and its interval are over all of them, and pass@k is shown up to k = trials',
      ),
    suite: z
      .enum(CODING_SUITES)
      .default(ARENA_SUITE)
      .describe("the suite whose every active task the run attempts: `arena` (the arena's own tasks) or `humaneval`"),
  })
  .strict();

export const codingParams = z.object({ id: pathId, session_id: z.string().max(40) });

export const execBody = z
  .object({
    command: z
      .union([
        z.string().min(1, 'must not be empty').max(100_000),
        z.array(z.string().max(100_000)).min(1, 'must name a program').max(1_000),
      ])
      .describe('a shell command (run with /bin/sh -c) or a program and its arguments'),
    timeout_seconds: z.number().int().min(1).max(120).default(60),
    stdin: z.string().max(MAX_STDIN_BYTES, `must be at most ${MAX_STDIN_BYTES} characters`).optional(),
  })
  .strict();

export const execResult = z.object({
  exit_code: z.number().int().nullable().describe('null when the command was killed'),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean().describe('stdout or stderr was cut at 64 KiB'),
  duration_ms: z.number().int(),
});

export const filesQuery = z.object({
  path: z.string().max(1024, 'must be at most 1024 characters').default('.'),
});

export const directoryListing = z.object({
  path: z.string(),
  entries: z.array(z.object({ name: z.string(), type: z.enum(['file', 'dir']), size: z.number().int() })),
});

export const submitResult = z.object({
  status: z.string().describe('passed, failed, timeout, error or cancelled'),
  tests_passed: z.number().int(),
  tests_total: z.number().int(),
});

export const tasksQuery = z
  .object({
    suite: z
      .enum(CODING_SUITES)
      .optional()
      .describe("only this suite's tasks: `arena` (the arena's own tasks) or `humaneval`"),
  })
  .strict();

export const taskListItem = z.object({
  id: z.string().describe('what `POST /api/agents/{id}/sandbox` takes as `task`, e.g. `python/leap-year`'),
  suite: z.enum(CODING_SUITES),
  language: z.string().describe('`python` or `javascript`'),
  title: z.string(),
  summary: z.string().describe("the statement's first line that is not blank nor a heading"),
});
