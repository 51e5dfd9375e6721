/**
 * The steps an agent takes in a coding session (exec, read, write, list, submit), whichever way it
 * sends them: the REST routes and the MCP tools call these same functions, so a step is checked,
 * counted, recorded and stopped at the deadline the same way. A refusal is an ArenaError whose
 * sentence both ways show as it is.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashToken, looksLikeCodingSessionToken, tokenMatchesHash } from '../domain/credentials';
import { parseDeliveryPublicId } from '../domain/deliveries';
import { ArenaError, notFound } from '../domain/errors';
import { workspacePath } from '../domain/sandbox/paths';
import type { CodingStepKind } from '../infra/db/entities/coding-step.entity';
import { findAgentCredentials } from '../infra/db/repositories/agent.repository';
import {
  codingSessionByTokenHash,
  findCodingSession,
  type CodingSessionRow,
} from '../infra/db/repositories/coding.repository';
import {
  admitCodingStep,
  codingStepOfClientCall,
  dropCodingStep,
  findCodingStep,
  type CodingStepRow,
} from '../infra/db/repositories/coding-step.repository';
import { codingRefusals, SANDBOX_BUSY, STEP_CAP_REACHED, type CodingScore } from '../workflows/contracts';
import {
  cancelStepOfCodingSession,
  runStepOfCodingSession,
  submitCodingSession,
  type WorkflowDeps,
} from './workflow-client';
import type { CodingDeps } from './coding-sessions';

/** A written file: at most 1 MiB of text. */
export const MAX_WRITE_BYTES = 1024 * 1024;

/** What a step refused for want of room on its worker tells the agent to wait (Retry-After). */
const STEP_RETRY_AFTER_SECONDS = 5;

const INVALID_TOKEN = 'invalid session token';

export type StepDeps = Pick<CodingDeps, 'workflows' | 'capacity'>;

/** The session a token was issued for; the token alone says which (only its hash is stored). */
export async function codingSessionOfToken(em: EntityManager, token: string | undefined): Promise<CodingSessionRow> {
  if (token === undefined)
    throw new ArenaError('unauthenticated', 'a session token (Authorization: Bearer) is required');
  // The shape first: a string that cannot be a token costs no query.
  if (!looksLikeCodingSessionToken(token)) throw new ArenaError('unauthenticated', INVALID_TOKEN);
  const row = await codingSessionByTokenHash(em, hashToken(token));
  if (!row) throw new ArenaError('unauthenticated', INVALID_TOKEN);
  return row;
}

/**
 * The session a step is for, if the caller may work it: the session's own token, or the agent's
 * secret. Anything else about someone else's session is 404, as for pull work.
 */
export async function authorizedCodingSession(
  em: EntityManager,
  agentId: number,
  publicId: string,
  credentials: { bearer?: string; agentSecret?: string },
): Promise<CodingSessionRow> {
  const parsed = parseDeliveryPublicId(publicId);
  const row = parsed?.kind === 'sandbox' ? await findCodingSession(em, parsed.id) : undefined;
  if (!row || row.agent_id !== agentId) throw notFound('coding session');
  if (credentials.bearer !== undefined) {
    const byToken = await codingSessionOfToken(em, credentials.bearer);
    if (byToken.session_id !== row.session_id) throw new ArenaError('forbidden', 'this token is for another session');
    return row;
  }
  if (credentials.agentSecret !== undefined && (await agentSecretMatches(em, agentId, credentials.agentSecret)))
    return row;
  throw new ArenaError('unauthenticated', 'a session token (Authorization: Bearer) or X-Arena-Secret is required');
}

/** Whether `secret` is the agent's own (`X-Arena-Secret`), whatever its mode. */
async function agentSecretMatches(em: EntityManager, agentId: number, secret: string): Promise<boolean> {
  const agent = await findAgentCredentials(em, agentId);
  return agent !== undefined && tokenMatchesHash(secret, agent.secret_hash);
}

function assertOpen(row: CodingSessionRow): void {
  if (row.status !== 'pending' && row.status !== 'running')
    throw new ArenaError('conflict', codingRefusals.ended(row.status));
  // The workflow refuses it as well; this answers without asking it.
  if (new Date(row.expires_at).getTime() <= Date.now()) throw new ArenaError('conflict', codingRefusals.deadline);
}

/**
 * Runs one step through the session's workflow and answers its recorded result. Within the caps: an
 * account's steps in flight (429) and what the session's worker has slots and queue for (503).
 */
export async function runCodingStep(
  em: EntityManager,
  deps: StepDeps,
  row: CodingSessionRow,
  kind: Exclude<CodingStepKind, 'submit'>,
  request: Record<string, unknown>,
  call: StepCall = {},
): Promise<CodingStepRow> {
  assertOpen(row);
  const { capacity, workflows } = deps;
  const admitted = await admitCodingStep(
    em,
    {
      sessionId: row.session_id,
      ownerId: row.owner_id,
      workerQueue: row.worker_queue,
      kind,
      request,
      clientRef: call.clientRef,
    },
    { stepsPerAccount: capacity.stepsPerAccount, stepsPerWorker: capacity.stepSlots + capacity.stepQueue },
  );
  if ('full' in admitted) {
    if (admitted.full === 'account') {
      throw new ArenaError(
        'rate_limited',
        `this account already has ${capacity.stepsPerAccount} coding steps running, the most it may have at once`,
        1,
      );
    }
    throw new ArenaError('unavailable', codingRefusals.busy, STEP_RETRY_AFTER_SECONDS);
  }
  const { stepId } = admitted;
  call.onAdmitted?.(stepId);
  // Best effort: a cancellation that cannot reach the workflow leaves the step to its own timeout.
  const cancel = () => void cancelStepOfCodingSession(workflows, row.session_id, stepId).catch(() => undefined);
  if (call.signal?.aborted) cancel();
  call.signal?.addEventListener('abort', cancel, { once: true });
  let steered;
  try {
    steered = await runStepOfCodingSession(workflows, row.session_id, stepId);
  } finally {
    call.signal?.removeEventListener('abort', cancel);
  }
  if (steered.kind !== 'done') {
    await dropCodingStep(em, stepId);
    if (steered.kind === 'refused') {
      if (steered.type === STEP_CAP_REACHED) throw new ArenaError('rate_limited', steered.reason);
      if (steered.type === SANDBOX_BUSY) throw new ArenaError('unavailable', steered.reason, STEP_RETRY_AFTER_SECONDS);
      throw new ArenaError('conflict', steered.reason);
    }
    const after = await findCodingSession(em, row.session_id);
    throw new ArenaError('conflict', codingRefusals.ended(after?.status ?? 'ended'));
  }
  const step = await findCodingStep(em, stepId);
  if (!step?.result) throw new ArenaError('conflict', codingRefusals.lost);
  return step;
}

/** The client's call a step answers, when the client may give up on it (an MCP tool call). */
export interface StepCall {
  /** The client's name for the call (`mcp:<request id>`): a cancellation naming it finds the step. */
  clientRef?: string;
  /** Aborted when the client gives up on the call (its connection dropped): the step is cancelled. */
  signal?: AbortSignal;
  /** Told the step's id once it is written, before it runs. */
  onAdmitted?: (stepId: number) => void;
}

/**
 * The client gave up on its call `clientRef` (an MCP `notifications/cancelled`, which may reach any
 * API process): the session's step for it, if one has not ended, is cancelled. Answers whether one was.
 */
export async function cancelClientCall(
  em: EntityManager,
  workflows: WorkflowDeps,
  row: CodingSessionRow,
  clientRef: string,
): Promise<boolean> {
  const stepId = await codingStepOfClientCall(em, row.session_id, clientRef);
  if (stepId === undefined) return false;
  await cancelStepOfCodingSession(workflows, row.session_id, stepId);
  return true;
}

/** Ends the session: the hidden tests run and the score comes back. */
export async function scoreCodingSession(
  em: EntityManager,
  workflows: WorkflowDeps,
  row: CodingSessionRow,
): Promise<CodingScore> {
  assertOpen(row);
  const steered = await submitCodingSession(workflows, row.session_id);
  if (steered.kind === 'done') return steered.value;
  if (steered.kind === 'refused') throw new ArenaError('conflict', steered.reason);
  const after = await findCodingSession(em, row.session_id);
  throw new ArenaError('conflict', codingRefusals.ended(after?.status ?? 'ended'));
}

export interface ExecRequest {
  command: string | string[];
  timeout_seconds: number;
  stdin?: string;
}

export interface ExecOutcome {
  exit_code: number | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  duration_ms: number;
}

export interface WorkspaceEntry {
  name: string;
  type: 'file' | 'dir';
  size: number;
}

/** A read: a file's text, or a folder's entries. `path` is the workspace path as the arena spells it. */
export type WorkspaceRead =
  { type: 'file'; path: string; content: string } | { type: 'dir'; path: string; entries: WorkspaceEntry[] };

/** A step the worker could not do in the workspace (a missing file, a folder where a file was asked). */
function refusedOn(step: CodingStepRow): void {
  const refused = (step.result as { refused?: { kind: 'invalid' | 'not_found' | 'conflict'; detail: string } } | null)
    ?.refused;
  if (refused) throw new ArenaError(refused.kind, refused.detail);
}

/** Runs a command in the workspace (its request as validated by the API's exec schema). */
export async function execInSession(
  em: EntityManager,
  deps: StepDeps,
  row: CodingSessionRow,
  request: ExecRequest,
  call?: StepCall,
): Promise<ExecOutcome> {
  const step = await runCodingStep(em, deps, row, 'exec', { ...request }, call);
  refusedOn(step);
  return step.result as unknown as ExecOutcome;
}

/** Reads a file or lists a folder. The path is checked after the caller was: a stranger learns nothing of the rules. */
export async function readInSession(
  em: EntityManager,
  deps: StepDeps,
  row: CodingSessionRow,
  requested: string,
  call?: StepCall,
): Promise<WorkspaceRead> {
  const path = workspacePath(requested);
  const step = await runCodingStep(em, deps, row, 'read', { path }, call);
  refusedOn(step);
  const result = step.result as { type?: 'file' | 'dir'; content?: string; entries?: WorkspaceEntry[] } | null;
  if (result?.type === 'dir') return { type: 'dir', path, entries: result.entries ?? [] };
  return { type: 'file', path, content: result?.content ?? '' };
}

/** Creates or replaces a file (and the folders it needs) with `content`, at most MAX_WRITE_BYTES of it; answers its path. */
export async function writeInSession(
  em: EntityManager,
  deps: StepDeps,
  row: CodingSessionRow,
  requested: string,
  content: string,
  call?: StepCall,
): Promise<string> {
  const path = workspacePath(requested);
  if (path === '.') throw new ArenaError('invalid', 'path must name a file');
  if (Buffer.byteLength(content, 'utf8') > MAX_WRITE_BYTES)
    throw new ArenaError('invalid', `the file must be at most ${MAX_WRITE_BYTES} bytes`);
  refusedOn(await runCodingStep(em, deps, row, 'write', { path, content }, call));
  return path;
}

/** Submit as the agent sees it: the status and the hidden tests passed of those run. */
export async function submitSession(
  em: EntityManager,
  workflows: WorkflowDeps,
  row: CodingSessionRow,
): Promise<{ status: string; tests_passed: number; tests_total: number }> {
  const score = await scoreCodingSession(em, workflows, row);
  return { status: score.status, tests_passed: score.testsPassed, tests_total: score.testsTotal };
}
