/** Activity sessions, the feed, pull work and sandbox tasks. */
import { z } from 'zod';
import { MAX_RESPONSE_CHARS, DELIVERY_KINDS, DELIVERY_STATUSES } from '../../domain/deliveries';
import type { SandboxRequest } from '../../services/agents';
import type { WorkPayload } from '../../domain/delivery-payload';
import type { WorkResult } from '../../services/pull-work';
import { pathId, timestamp } from './common';

export const activityDelivery = z.object({
  id: z.string().describe('`<kind>-<n>`'),
  kind: z.enum(DELIVERY_KINDS),
  category: z.string(),
  prompt: z.string(),
  response: z.string().nullable().describe('null while pending and on a failure'),
  in_judging: z
    .boolean()
    .describe(
      'an arena answer that judges may still be shown: only its owner sees such an entry (the public feed leaves arena deliveries out whole, prompt and all, while pending or in judging, until all its pairs are voted or the judging days have passed)',
    ),
  error: z.string().nullable(),
  latency_ms: z.number().int().describe('0 while pending'),
  status: z.enum(DELIVERY_STATUSES),
  created_at: timestamp,
  redelivery_of: z
    .string()
    .nullable()
    .describe('an operator sent this prompt again: the original delivery, `<kind>-<n>`'),
});

export const activityFeed = z.object({
  agent_id: z.number().int(),
  agent_name: z.string(),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  has_more: z.boolean(),
  sessions: z.array(activityDelivery),
});

export const feedQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  offset: z.coerce.number().int().min(0, 'must not be negative').max(2147483647).default(0),
});

export const workNextQuery = z.object({
  wait: z.coerce
    .number()
    .int()
    .min(0, 'must not be negative')
    .default(0)
    .transform((v) => Math.min(v, 50)),
});

/** A coding session's sandbox, in its prompt (push body and work/next). */
export const sandboxObject = z.object({
  session_id: z.string(),
  api: z.string().describe("the base address of the session's steps: exec, files, submit"),
  mcp_url: z
    .string()
    .describe("the same steps as MCP tools (Streamable HTTP), with the session's token as `Authorization: Bearer`"),
  token: z.string().describe("the session's token, for `Authorization: Bearer`; good for this session only"),
  expires_at: z.string(),
  max_steps: z.number().int(),
});

export const workPayload = z.object({
  prompt_id: z.number().int(),
  prompt: z.string(),
  category: z.string(),
  deadline_seconds: z.number().int(),
  kind: z.enum(DELIVERY_KINDS),
  work_id: z.string(),
  redelivery_of: z
    .string()
    .optional()
    .describe('present when an operator sent this prompt again: the original delivery, `<kind>-<n>`'),
  sandbox: sandboxObject.optional().describe("a coding session's sandbox: where its steps go and its token"),
}) satisfies z.ZodType<WorkPayload>;

export const workParams = z.object({
  id: pathId,
  work_id: z.string().max(40),
});

/** Exactly one of response or error: checked by the refinement, and said by `oneOf` in the document. */
export const workResult = z
  .object({
    response: z
      .string()
      .max(MAX_RESPONSE_CHARS)
      .optional()
      .describe('the answer; an empty or whitespace-only one is recorded as the error "empty response"'),
    error: z.string().min(1).max(10_000).optional(),
    latency_ms: z.number().int().min(0, 'must not be negative').max(86_400_000).optional(),
  })
  .refine((b) => (b.response === undefined) !== (b.error === undefined), {
    message: 'send exactly one of response or error',
  })
  .meta({ oneOf: [{ required: ['response'] }, { required: ['error'] }] }) satisfies z.ZodType<WorkResult>;

export const workRecorded = z.object({
  work_id: z.string(),
  recorded: z.literal(true),
  status: z
    .string()
    .describe(
      "the delivery's status once the result was taken: answered or error for a prompt; a coding session's own (running until it is submitted or its deadline passes, then passed, failed or error)",
    ),
  error: z.string().nullable().describe('why it ended as an error, as the public feed says'),
});

export const sandboxCreate = z.object({
  // Messages spelled out: the website's forms parse this too.
  prompt: z.string().trim().min(1, 'must not be empty').max(20_000, 'must be at most 20000 characters'),
  category: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').default('sandbox'),
  deadline_seconds: z.number().int().min(1).max(300).default(60),
}) satisfies z.ZodType<SandboxRequest>;

export const sandboxParams = z.object({
  id: pathId,
  session_id: z.string().max(40),
});
