/**
 * What the API, the workflows and the activities agree on: inputs, outputs, updates, search
 * attributes and refusal reasons. Deterministic and free of I/O, so workflow code can import it.
 */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AgentMode } from '../domain/agent-state';
import type { Verdict } from '../domain/arena';
import {
  deadlineExceededMessage,
  type DeliveryKind,
  type DeliveryStatus,
  type WrittenDelivery,
} from '../domain/deliveries';

export const TASK_QUEUE_DEFAULT = 'arena';

export const ArenaAgentId = defineSearchAttributeKey('ArenaAgentId', SearchAttributeType.INT);
export const ArenaKind = defineSearchAttributeKey('ArenaKind', SearchAttributeType.KEYWORD);
export const ArenaMode = defineSearchAttributeKey('ArenaMode', SearchAttributeType.KEYWORD);
export const ArenaOutcome = defineSearchAttributeKey('ArenaOutcome', SearchAttributeType.KEYWORD);

/** Everything a delivery needs to know up front; the payload itself is read by the activities. */
export interface DeliveryInput {
  sessionId: number;
  agentId: number;
  kind: DeliveryKind;
  mode: AgentMode;
  category: string;
  deadlineSeconds: number;
  /** An operator's redelivery: the public id (`<kind>-<n>`) of the original delivery, shown in the summary. */
  redeliveryOf?: string;
}

/**
 * The workflow input of a written delivery: every delivery, from the API, the dispatch, the gym, a
 * live battle or a redelivery (`redeliveryOf`: the original's public id), is started from this.
 */
export function deliveryInputOf(row: WrittenDelivery, redeliveryOf?: string): DeliveryInput {
  return {
    sessionId: row.id,
    agentId: row.agent_id,
    kind: row.kind,
    mode: row.mode,
    category: row.category,
    deadlineSeconds: row.deadline_seconds,
    ...(redeliveryOf ? { redeliveryOf } : {}),
  };
}

/** A pull result as the API hands it to the workflow. */
export interface PullResult {
  response: string | null;
  error: string | null;
  /** The runner's own timing, when it sent one. */
  agentLatencyMs: number | null;
  /** SHA-256 of the response/error, to tell a repeated post from a different one. */
  resultHash: string;
  /** When the API received it (ms since the epoch): latency ends here. */
  receivedAt: number;
}

/** What a delivery ended as: the recorded session status. */
export interface DeliveryOutcome {
  status: DeliveryStatus;
}

/**
 * What the push activity returns: the recorded outcome, or, when the database failed after the
 * agent answered, the settlement it could not write, for the workflow to record.
 */
export type PushOutcome = DeliveryOutcome | { unrecorded: Settlement };

/** How the delivery ended, before it is recorded: the workflow settles it, an activity records it. */
export type Settlement =
  | { status: 'answered'; response: string; latencyMs: number }
  | {
      status: 'error';
      /** What the public feed shows. */
      error: string;
      /** The owner's fuller account of it (a webhook's host and address), when it differs. */
      errorDetail?: string;
      latencyMs: number;
      /** Our side failed (a lost worker, a deactivated agent), not the agent. */
      notAgentsFault?: boolean;
    }
  | { status: 'pulled'; result: PullResult }
  | { status: 'deadline' }
  | { status: 'cancelled' };

/** A pull runner's result. Refused (validator) when the item expired, was cancelled or already got a different result. */
export const submitResult = defineUpdate<DeliveryOutcome, [PullResult]>('submitResult');

/** An owner cancels a sandbox task. Refused when it has already ended. */
export const cancelDelivery = defineUpdate<DeliveryOutcome, []>('cancelDelivery');

/**
 * The failure type of an update's refusal, so the API tells a refusal (409 with its reason) from
 * any other failure without reading the message.
 */
export const DELIVERY_REFUSED = 'DeliveryRefused';

/**
 * Why a result or a cancel is refused. The workflow's validators say it while the delivery runs;
 * the API says the same once it has been recorded, so a runner reads one sentence either way.
 */
export const refusals = {
  notPullMode: 'agent is not in pull mode',
  differentResult: 'a different result was already recorded for this work item',
  cancelled: 'the task was cancelled',
  answered: 'the task has already been answered',
  ended: 'the task has already ended',
  expired: (deadlineSeconds: number) => `work item expired: ${deadlineExceededMessage(deadlineSeconds)}`,
} as const;

export function deliveryWorkflowId(sessionId: number): string {
  return `delivery-${sessionId}`;
}

export function gymWorkflowId(agentId: number, attempt: number): string {
  return `gym-${agentId}-${attempt}`;
}

/** Start options shared by the API (sandbox) and the gym (child workflows): id, search attributes, summary. */
export function deliveryStartOptions(input: DeliveryInput): {
  workflowId: string;
  typedSearchAttributes: SearchAttributePair[];
  staticSummary: string;
} {
  return {
    workflowId: deliveryWorkflowId(input.sessionId),
    typedSearchAttributes: [
      { key: ArenaAgentId, value: input.agentId },
      { key: ArenaKind, value: input.kind },
      { key: ArenaMode, value: input.mode },
    ],
    staticSummary:
      `agent ${input.agentId} · ${input.kind} · ${input.category} (${input.mode}, ${input.deadlineSeconds} s)` +
      (input.redeliveryOf ? ` · redelivery of ${input.redeliveryOf}` : ''),
  };
}

export interface GymInput {
  agentId: number;
  attempt: number;
  /** Seconds between cycles while some gym prompt still has no good answer, or the agent is inactive. */
  retrySeconds: number;
  /** Carried across continue-as-new. */
  cycle?: number;
}

/** Where a dispatch step stands, carried from run to run when the step continues as new. */
export interface DispatchCursor {
  /** The step's first run: with the batch number it keys each batch's sessions. */
  stepKey: string;
  /** Agents due at this moment (as PostgreSQL wrote it) belong to the step; later ones wait for the next. */
  dueAsOf: string;
  /** When the step began (database clock, ms since the epoch), for its duration. */
  startedMs: number;
  /** Sessions the step creates have ids above this, so a retried batch finds its own by a short scan. */
  afterSessionId: number;
  /** The next batch's number. */
  batch: number;
  /** Agents served so far. */
  served: number;
  /** Deliveries a run starts before it continues as new (ARENA_DISPATCH_CHILDREN_PER_RUN). */
  childrenPerRun: number;
}

/** One batch of a dispatch step, as its activity created it. */
export interface DispatchBatch {
  deliveries: DeliveryInput[];
  /** Whether another batch may find due agents (this one was full and the step is under its maximum). */
  more: boolean;
}

export function voteWorkflowId(battleId: number): string {
  return `vote-${battleId}`;
}

export function liveBattleWorkflowId(battleId: number): string {
  return `battle-${battleId}`;
}

/** One side of a vote's rating change. */
export interface RatingMove {
  agentId: number;
  before: number;
  after: number;
}

export interface VoteInput {
  battleId: number;
  winner: Verdict;
}

/** A recorded vote: its verdict and how it moved each side's rating. */
export interface RecordedVote {
  battleId: number;
  winner: Verdict;
  a: RatingMove;
  b: RatingMove;
}

export interface LiveBattleInput {
  battleId: number;
  deliveries: [DeliveryInput, DeliveryInput];
}

/** A coding sandbox session: a delivery (kind `sandbox`, category `swe`) that lasts until submit, cancel or its deadline. */
export interface CodingSessionInput extends DeliveryInput {
  taskId: string;
  maxSteps: number;
}

/** How a coding session's workflow starts, from the API or from a benchmark run: the delivery's options, and its task in the summary. */
export function codingSessionStartOptions(input: CodingSessionInput): ReturnType<typeof deliveryStartOptions> {
  const options = deliveryStartOptions(input);
  return { ...options, staticSummary: `${options.staticSummary} · task ${input.taskId}` };
}

/** A benchmark run: every task of `taskIds`, `trials` times, as the account's cap of live sessions allows. */
export interface BenchmarkInput {
  runId: number;
  agentId: number;
  taskIds: string[];
  trials: number;
  deadlineSeconds: number;
  maxSteps: number;
  /** The account's cap of live coding sessions, when the run started. */
  sessionsPerAccount: number;
}

/** A benchmark run's end: sessions it opened, tasks it skipped (retired meanwhile), and why it stopped short, if it did. */
export interface BenchmarkOutcome {
  opened: number;
  skipped: number;
  stopped?: string;
}

/** What the retention schedule keeps, and for how long. */
export interface RetentionSettings {
  /** Days a coding session's steps keep their full request and output after it ended (ARENA_CODING_STEP_RETENTION_DAYS). */
  codingStepDays: number;
  /** Days a settled work item is kept after its delivery ended (ARENA_WORK_ITEM_RETENTION_DAYS); schedules made before it omit it. */
  workItemDays?: number;
}

export function benchmarkWorkflowId(runId: number): string {
  return `benchmark-${runId}`;
}

/** A coding step as the API hands it over: the step's row holds the request (and gets the result), so no file or output passes through the history. */
export interface CodingStepRef {
  stepId: number;
}

/** What a step answers through the workflow: its number in the session; the API reads the result from the step's row. */
export interface CodingStepDone {
  n: number;
}

/** A coding session's score once its hidden tests ran. */
export interface CodingScore {
  status: DeliveryStatus;
  testsPassed: number;
  testsTotal: number;
  /** Why the run was found tampered with (it then scored 0). */
  tampered?: string;
}

/** What one run of the hidden tests in a clean room found (the harness's report, read by the worker). */
export interface CodingRun {
  passed: number;
  total: number;
  /** The run was tampered with, and why: it scores 0. */
  tampered?: string;
  /** No score the arena believes came out of the run (no report): it scores 0. */
  unread?: string;
  /** Files of the agent's not carried into the clean room (links, or past the size budget), the first 20. */
  leftOut?: string[];
  /** Values of the code's the judge could not compare, for the owner only (they name the code's classes). */
  uncompared?: string[];
}

/** The queue beside a worker's step queue that ends its sessions (stop, score, remove): never behind steps. */
export function sessionEndQueueOf(stepQueue: string): string {
  return `${stepQueue}-end`;
}

/** One exec, read or write of the agent's: refused once the session ended or past its step cap. */
export const runCodingStep = defineUpdate<CodingStepDone, [CodingStepRef]>('runCodingStep');

/**
 * The client that asked for a step gave up on it (an MCP `notifications/cancelled`, or its
 * connection dropped): a step still queued never runs, a running command is stopped.
 */
export const cancelCodingStep = defineSignal<[CodingStepRef]>('cancelCodingStep');

/** The agent is done: the hidden tests run and the score comes back. Refused once the session ended. */
export const submitCoding = defineUpdate<CodingScore, []>('submitCoding');

/** Refusal type of a step past the session's step cap (the API answers 429). */
export const STEP_CAP_REACHED = 'StepCapReached';

/** Refusal type of a step its worker had no free slot for in time (it did not run; the API answers 503). */
export const SANDBOX_BUSY = 'SandboxBusy';

export const codingRefusals = {
  ended: (status: string) => `the session has ended (${status})`,
  deadline: 'the session has ended (its deadline passed; its hidden tests run now)',
  busy: "the session's sandbox worker is busy with other sessions' steps; this step did not run, send it again shortly",
  stepCap: (maxSteps: number) => `the session has used all its ${maxSteps} steps; submit to be scored`,
  submitted: 'the session was submitted; its hidden tests are running',
  lost: 'workspace lost',
  broken: 'the sandbox failed on its worker',
  cancelled: 'the call was cancelled before its step ran; the step did not run',
} as const;
