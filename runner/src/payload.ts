/** The prompt payload as the arena sends it, checked just enough to run an agent command on it. */
import { parseSandboxSession, type SandboxSession } from './sandbox-session';

/** The largest `response` the arena records; longer answers are reported as an error instead. */
export const MAX_RESPONSE_CHARS = 100_000;

/** What the arena uses when a payload carries no deadline; it always sends one in practice. */
const FALLBACK_DEADLINE_SECONDS = 300;

export interface PromptPayload {
  prompt_id: string;
  prompt: string;
  category: string;
  deadline_seconds: number;
  /** Pull only: `main`, `gym` or `sandbox`. */
  kind?: string;
  /** Pull only: the session id `<kind>-<n>` the result is posted to. */
  work_id?: string;
  /** A coding session: where and until when the command works it. */
  sandbox?: SandboxSession;
  [field: string]: unknown;
}

/** One prompt to answer: the parsed payload and the exact text the agent command reads on stdin. */
export interface PromptDelivery {
  payload: PromptPayload;
  raw: string;
}

export type ParsedDelivery = { ok: true; delivery: PromptDelivery } | { ok: false; reason: string };

export function parseDelivery(raw: string): ParsedDelivery {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'body is not a JSON object' };
  }
  const fields = value as Record<string, unknown>;
  if (typeof fields.prompt_id !== 'string' && typeof fields.prompt_id !== 'number') {
    return { ok: false, reason: 'prompt_id is missing' };
  }
  if (typeof fields.prompt !== 'string') return { ok: false, reason: 'prompt is missing or not a string' };
  const deadline = fields.deadline_seconds;
  if (deadline !== undefined && !(typeof deadline === 'number' && Number.isFinite(deadline) && deadline > 0)) {
    return { ok: false, reason: 'deadline_seconds is not a positive number' };
  }
  const payload: PromptPayload = {
    ...fields,
    prompt_id: String(fields.prompt_id),
    prompt: fields.prompt,
    category: typeof fields.category === 'string' ? fields.category : '',
    deadline_seconds: deadline ?? FALLBACK_DEADLINE_SECONDS,
  };
  if (typeof fields.kind !== 'string') delete payload.kind;
  if (typeof fields.work_id !== 'string') delete payload.work_id;
  // A session the command could not reach is refused here, rather than run to a certain failure.
  if (fields.sandbox === undefined || fields.sandbox === null) delete payload.sandbox;
  else {
    const session = parseSandboxSession(fields.sandbox);
    if (!session.ok) return { ok: false, reason: session.reason };
    payload.sandbox = session.session;
  }
  return { ok: true, delivery: { payload, raw } };
}

/** The arena's connectivity ping is shaped like a prompt; it is answered without running the agent. */
export function isPing(payload: PromptPayload): boolean {
  return payload.category === 'ping' && payload.prompt === 'ping' && payload.prompt_id.startsWith('ping-');
}

/** How the log names what arrived: `prompt 7 (deadline 300 s)`, or a coding session and its limits. */
export function describePayload(payload: PromptPayload): string {
  return payload.sandbox
    ? `coding session (until ${payload.sandbox.expires_at}, at most ${payload.sandbox.max_steps} steps)`
    : `prompt ${payload.prompt_id} (deadline ${payload.deadline_seconds} s)`;
}
