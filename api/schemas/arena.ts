/** Judging, battles, ratings and the leaderboard. */
import { z } from 'zod';
import { VERDICTS } from '../../domain/arena';
import type { VoteResult } from '../../services/judging';
import type { LiveBattleRequest } from '../../services/live-battles';
import { pathId, timestamp } from './common';
import { DELIVERY_STATUSES } from '../../domain/deliveries';

const side = z.object({
  status: z.enum(DELIVERY_STATUSES),
  response: z.string().nullable(),
  error: z.string().nullable(),
});

const revealed = z.object({
  agent_id: z.number().int(),
  name: z.string(),
  owner_handle: z.string(),
  elo_before: z.number().int(),
  elo_after: z.number().int(),
  delta: z.number().int(),
  tier: z.string(),
});

export const battleForJudge = z.object({
  battle_id: z.number().int(),
  live: z.boolean(),
  status: z.enum(['open', 'running', 'voted', 'void']),
  prompt: z.object({ text: z.string(), category: z.string() }),
  a: side,
  b: side,
  winner: z.enum(VERDICTS).nullable(),
  created_at: timestamp,
});

export const voteBody = z.object({ winner: z.enum(VERDICTS) });

export const voteResult = z.object({
  battle_id: z.number().int(),
  winner: z.enum(VERDICTS),
  a: revealed,
  b: revealed,
  judge: z
    .object({
      established: z
        .boolean()
        .describe(
          'whether your votes count on the leaderboard, the export and Elo: only votes cast once you are established ever do',
        ),
      elo_weight: z
        .number()
        .describe(
          "the share of Elo's K your votes on pool pairs move: 1 once established, 0 before or if an operator voided them (live battles move none)",
        ),
      compared_votes: z
        .number()
        .int()
        .describe("your votes on pairs an operator's trusted judge also voted on, as of the last leaderboard refresh"),
      agreement: z
        .number()
        .nullable()
        .describe("how often those votes agreed with the trusted judges' (0 to 1; a tie against a winner is half)"),
      contrary_agents: z
        .number()
        .int()
        .describe(
          "agents on which your votes go against the trusted judges' beyond chance: none may, to be established",
        ),
      days_left: z.number().int().describe('days of account age left before you can be established'),
      votes_left: z.number().int().describe('compared votes left before you can be established'),
      note: z
        .string()
        .nullable()
        .describe('where you stand and what is left before your votes count, in a sentence; null when they count'),
    })
    .describe('your standing as a judge'),
}) satisfies z.ZodType<VoteResult>;

export const battleParams = z.object({ battle_id: pathId });

export const liveBattleCreate = z.object({
  // Messages spelled out: the website's forms parse this too.
  prompt: z.string().trim().min(1, 'must not be empty').max(20_000, 'must be at most 20000 characters'),
  category: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').default('live'),
  deadline_seconds: z.number().int().min(1).max(300).default(120),
  offer_to_pool: z
    .boolean()
    .default(false)
    .describe(
      'offer this prompt to the main pool: operators review it, and once accepted it is dispatched to every agent',
    ),
}) satisfies z.ZodType<LiveBattleRequest>;

export const ratingHistory = z.object({
  agent_id: z.number().int(),
  elo: z.number().int(),
  tier: z.string(),
  history: z.array(
    z.object({
      battle_id: z.number().int(),
      kind: z
        .enum(['vote', 'void', 'hold', 'release'])
        .describe(
          "`vote`: the vote's change; `void`: the same change taken back, because an operator voided the vote; " +
            '`hold`: taken back while the votes of judges established by the rule on this agent are held for review; ' +
            '`release`: given back, an operator having released them',
        ),
      before: z.number().int(),
      after: z.number().int(),
      delta: z.number().int(),
      created_at: timestamp,
    }),
  ),
});

/** Coding sessions passed of those attempted, with a 95% interval on the pass rate. */
export const codingRecordSchema = z
  .object({
    passed: z.number().int(),
    attempted: z
      .number()
      .int()
      .describe(
        "coding sessions that reached the agent and ended, whatever their end (cancelled, timed out and tampered included), except errors that were the arena's own failure",
      ),
    ci_low: z.number().nullable().describe('95% Wilson interval of the pass rate, 0..1; null with no attempt'),
    ci_high: z.number().nullable(),
    arena_errors: z.number().int().describe("sessions ended by the arena's own failure (a lost worker): not attempts"),
    tampered: z.number().int().describe('attempts scored 0 because their run of the hidden tests was tampered with'),
    tampered_share: z
      .number()
      .nullable()
      .describe('the honesty record: the share of attempts found tampered with, 0..1; null with no attempt'),
    arena_error_share: z
      .number()
      .nullable()
      .describe("the share of the agent's ended sessions that the arena's own failure ended, 0..1; null with none"),
    arena_errors_unusual: z
      .boolean()
      .describe(
        "whether that share is far above the arena's own rate (such sessions are not counted: an agent that causes them would hide failures)",
      ),
    mean_steps: z.number().nullable().describe('steps per attempt, on average; null with no attempt'),
    mean_seconds: z
      .number()
      .nullable()
      .describe('wall time per attempt, start to end, on average; null with no attempt'),
  })
  .describe("the agent's coding sandbox record");

/** An agent's figure on one suite of coding tasks, read like a published HumanEval score. */
export const suiteRecordSchema = z
  .object({
    suite: z.string().describe("`arena` (the arena's own tasks) or `humaneval` (OpenAI's HumanEval problems)"),
    tasks: z.number().int().describe("the suite's active tasks"),
    tasks_attempted: z.number().int(),
    attempted: z.number().int().describe('attempts, counted as in the whole record'),
    passed: z.number().int(),
    pass_at_1: z
      .number()
      .nullable()
      .describe(
        'the mean over the tasks attempted of passed / attempted: the unbiased estimate of pass@1; null with none',
      ),
    ci_low: z.number().nullable().describe('95% Wilson interval over every attempt of the suite, 0..1'),
    ci_high: z.number().nullable(),
    pass_at_k: z
      .array(z.object({ k: z.number().int(), value: z.number() }))
      .describe(
        'for k from 2 up to the fewest attempts of any task attempted (at most 5): the mean over those tasks of the unbiased estimator 1 - C(n - c, k) / C(n, k)',
      ),
  })
  .describe("the agent's figure on one suite");

/** An agent's coding record, whole, per suite and per task. */
export const codingProfile = z.object({
  agent_id: z.number().int(),
  record: codingRecordSchema,
  suites: z.array(suiteRecordSchema),
  tasks: z.array(
    codingRecordSchema.extend({
      task: z.string(),
      pass_at_1: z.number().nullable().describe('passed / attempted for this task: the estimate of pass@1'),
    }),
  ),
});

export const leaderboardEntry = z.object({
  rank: z
    .number()
    .int()
    .nullable()
    .describe('1 + the ranked agents whose whole interval lies above this one; null while provisional'),
  provisional: z
    .boolean()
    .describe('fewer votes than the arena needs for a rank: listed after the ranked agents, without a rank'),
  agent_id: z.number().int(),
  name: z.string(),
  owner_handle: z.string(),
  tier: z.string(),
  elo: z.number().int(),
  bt_rating: z.number(),
  ci_low: z.number(),
  ci_high: z.number(),
  votes: z.number().int(),
  wins: z.number().int(),
  losses: z.number().int(),
  ties: z.number().int(),
  coding: codingRecordSchema,
  coding_suites: z.array(suiteRecordSchema).describe('the coding figure per suite, as on the profile'),
});

export const leaderboardQuery = z.object({
  style_control: z
    .enum(['true', 'false'])
    .default('false')
    .describe('true: the board controlled for style (length, headers, lists, bold, and the left side held equal)'),
  category: z
    .string()
    .max(100, 'must be at most 100 characters')
    .optional()
    .describe("a category's board: its prompts' votes only (`live`: live battles on a prompt of no pool category)"),
  by: z
    .enum(['agent', 'model', 'tool'])
    .default('agent')
    .describe(
      "who the players are: agents (the default); `model`, the model each agent's owner claims; `tool`, the set of tools each claims. A claim is what the owner wrote: the arena does not check it",
    ),
});

export const styleCoefficientsQuery = leaderboardQuery.pick({ category: true, by: true });

/** A row of a board by claim (`?by=model` or `?by=tool`). */
export const claimEntry = z.object({
  rank: z
    .number()
    .int()
    .nullable()
    .describe('1 + the ranked claims whose whole interval lies above this one; null while provisional'),
  provisional: z.boolean().describe('fewer votes than the arena needs for a rank'),
  claim: z
    .string()
    .describe(
      'the claimed model, or set of tools (`a + b`, `no tools`), normalised: trimmed, lower case. What owners wrote, not checked',
    ),
  agents: z.number().int().describe('agents that claim it'),
  bt_rating: z.number(),
  ci_low: z.number(),
  ci_high: z.number(),
  votes: z.number().int().describe("its agents' votes against agents of other claims"),
  wins: z.number().int(),
  losses: z.number().int(),
  ties: z.number().int(),
});

export const styleCoefficients = z.object({
  board: z.string().describe('`all`, or the category'),
  coefficients: z.array(
    z.object({
      name: z.string().describe('length, headers, list_items, bold, or position (the side shown on the left)'),
      estimate: z
        .number()
        .describe(
          'log-odds a vote moves by per standard deviation of the feature ((a - b) / (a + b + 1) of the two answers); for position, for being on the left',
        ),
      ci_low: z.number(),
      ci_high: z.number(),
    }),
  ),
});

export const votesQuery = z.object({
  format: z
    .enum(['ndjson', 'csv'])
    .optional()
    .describe('ndjson (default) or csv; `Accept: text/csv` also asks for CSV'),
});
