/** A coding session in a payload: the `sandbox` object, the variables the agent command gets for it, and its deadline. */

/** What the arena sends to work one coding session: its address, a token for it alone, and its limits. */
export interface SandboxSession {
  session_id: string;
  /** Absolute URL of the session's steps: `<arena>/api/agents/<id>/sandbox/<session_id>`. */
  api: string;
  /** The same steps as MCP tools (`<arena>/mcp`); arenas from before it send none. */
  mcp_url?: string;
  token: string;
  /** ISO 8601 time at which the session ends, submitted or not. */
  expires_at: string;
  max_steps: number;
}

export type ParsedSandboxSession = { ok: true; session: SandboxSession } | { ok: false; reason: string };

export function parseSandboxSession(value: unknown): ParsedSandboxSession {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'sandbox is not a JSON object' };
  }
  const fields = value as Record<string, unknown>;
  const bad = (field: string) => ({ ok: false as const, reason: `sandbox.${field} is missing or invalid` });
  if (typeof fields.session_id !== 'string' || fields.session_id === '') return bad('session_id');
  if (typeof fields.api !== 'string' || !isHttpUrl(fields.api)) return bad('api');
  if (fields.mcp_url !== undefined && (typeof fields.mcp_url !== 'string' || !isHttpUrl(fields.mcp_url)))
    return bad('mcp_url');
  if (typeof fields.token !== 'string' || fields.token === '') return bad('token');
  if (typeof fields.expires_at !== 'string' || Number.isNaN(Date.parse(fields.expires_at))) return bad('expires_at');
  const maxSteps = fields.max_steps;
  if (typeof maxSteps !== 'number' || !Number.isInteger(maxSteps) || maxSteps < 1) return bad('max_steps');
  return {
    ok: true,
    session: {
      session_id: fields.session_id,
      api: fields.api,
      ...(fields.mcp_url === undefined ? {} : { mcp_url: fields.mcp_url }),
      token: fields.token,
      expires_at: fields.expires_at,
      max_steps: maxSteps,
    },
  };
}

/** The agent command's variables for a session; the `sandbox` helper reads the first two, `mcp` the token and the MCP address. */
export function sandboxEnv(session: SandboxSession): Record<string, string> {
  return {
    ARENA_SANDBOX_API: session.api,
    ARENA_SANDBOX_TOKEN: session.token,
    ARENA_SANDBOX_SESSION: session.session_id,
    ARENA_SANDBOX_EXPIRES_AT: session.expires_at,
    ARENA_SANDBOX_MAX_STEPS: String(session.max_steps),
    ...(session.mcp_url === undefined ? {} : { ARENA_SANDBOX_MCP_URL: session.mcp_url }),
  };
}

// setTimeout fires at once for anything longer (about 24.8 days).
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface CommandDeadline {
  /** How long the command may run from now. */
  ms: number;
  /** Why it was stopped, once this passed. */
  missed: string;
}

/**
 * A prompt gives its command `deadline_seconds` from receipt. A coding session lasts until its
 * `expires_at` instead: it may have waited in the queue, and the summary is of no use after it.
 * The comparison is with this machine's clock, so it should be synchronised (as push already needs).
 */
export function commandDeadline(
  payload: { deadline_seconds: number; sandbox?: SandboxSession },
  now = Date.now(),
): CommandDeadline {
  if (payload.sandbox) {
    return {
      ms: Math.min(MAX_TIMER_MS, Math.max(0, Date.parse(payload.sandbox.expires_at) - now)),
      missed: `command did not finish before the session's deadline (${payload.sandbox.expires_at})`,
    };
  }
  return {
    ms: payload.deadline_seconds * 1000,
    missed: `command did not finish within ${payload.deadline_seconds} s`,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
