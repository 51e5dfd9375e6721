/** A client for one coding session's steps (exec, files, submit), authorised by the session's token. */
import { request, type Dispatcher } from 'undici';
import { describeNetworkError, detailOf } from './arena-client';

export interface SandboxAccess {
  /** The session's address: `<arena>/api/agents/<id>/sandbox/<session_id>`. */
  api: string;
  token: string;
}

export interface ExecOptions {
  /** 1 to 120; the arena's default is 60. */
  timeoutSeconds?: number;
  stdin?: string;
}

export interface ExecResult {
  exit_code: number;
  stdout: string;
  stderr: string;
  /** Whether a stream was cut at the arena's output limit. */
  truncated: boolean;
  duration_ms: number;
}

export interface WorkspaceEntry {
  name: string;
  type: 'file' | 'dir';
  size: number;
}

export interface DirectoryListing {
  path: string;
  entries: WorkspaceEntry[];
}

export type WorkspaceRead = { kind: 'file'; text: string } | { kind: 'dir'; listing: DirectoryListing };

export interface SubmitResult {
  status: string;
  tests_passed: number;
  tests_total: number;
}

/** A step that did not happen: the arena's refusal (`status`, its `detail`), or no answer at all (no status). */
export class SandboxStepError extends Error {
  override name = 'SandboxStepError';
  constructor(
    readonly detail: string,
    readonly status?: number,
    /** The step did not run, and may be sent again after this wait (the arena's Retry-After). */
    readonly retryAfterMs?: number,
  ) {
    super(status === undefined ? detail : `${detail} (HTTP ${status})`);
  }
}

/** Where the agent command finds its session: the variables `arena-runner run` and `push` set. */
export function sandboxAccessFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxAccess | undefined {
  const api = env.ARENA_SANDBOX_API;
  const token = env.ARENA_SANDBOX_TOKEN;
  return api && token ? { api, token } : undefined;
}

const USER_AGENT = 'arena-runner/1';
// Beyond the command's own time limit: the step waits its turn on the worker that holds the files.
const EXEC_SLACK_MS = 60_000;
const DEFAULT_EXEC_SECONDS = 60;
const FILES_TIMEOUT_MS = 60_000;
// Submit runs the hidden tests before it answers.
const SUBMIT_TIMEOUT_MS = 600_000;

/** How long a step is sent again while the arena says it did not run for want of room, at most. */
const RETRY_FOR_MS = 120_000;

/**
 * Each method is one step and counts against the session's step cap. A step the arena refused for
 * want of room (its worker busy, 503, or the account's steps in flight at their cap, 429, both with
 * `Retry-After`) did not run, and is sent again after the wait. Nothing else is retried: an exec
 * whose answer was lost may still have run, and running it again could do its work twice.
 */
export class SandboxClient {
  private readonly api: string;

  constructor(private readonly access: SandboxAccess) {
    this.api = access.api.replace(/\/+$/, '');
  }

  /** An argv runs as given; a string runs through the sandbox's shell. */
  async exec(command: string | string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const body = {
      command,
      ...(opts.timeoutSeconds === undefined ? {} : { timeout_seconds: opts.timeoutSeconds }),
      ...(opts.stdin === undefined ? {} : { stdin: opts.stdin }),
    };
    const timeoutMs = (opts.timeoutSeconds ?? DEFAULT_EXEC_SECONDS) * 1000 + EXEC_SLACK_MS;
    const answer = await this.step('POST', '/exec', timeoutMs, {
      body: JSON.stringify(body),
      contentType: 'application/json',
    });
    return expectShape<ExecResult>(answer.json(), { exit_code: 'number', stdout: 'string', stderr: 'string' });
  }

  /** A file's text, or a directory's listing; paths are relative to the workspace root (`.`). */
  async read(path: string): Promise<WorkspaceRead> {
    const answer = await this.step('GET', filesPath(path), FILES_TIMEOUT_MS);
    if (!answer.isJson) return { kind: 'file', text: answer.text };
    const listing = expectShape<DirectoryListing>(answer.json(), { path: 'string' });
    if (!Array.isArray(listing.entries)) throw unreadable('a listing without entries');
    return { kind: 'dir', listing };
  }

  async list(path = '.'): Promise<DirectoryListing> {
    const read = await this.read(path);
    if (read.kind === 'file') throw new SandboxStepError(`${path} is a file, not a directory`);
    return read.listing;
  }

  /** Creates or replaces the file, and the directories it needs. */
  async write(path: string, text: string | Uint8Array): Promise<void> {
    await this.step('PUT', filesPath(path), FILES_TIMEOUT_MS, {
      body: text,
      contentType: 'text/plain; charset=utf-8',
    });
  }

  /** Ends the session: the hidden tests run, and their score comes back. */
  async submit(): Promise<SubmitResult> {
    const answer = await this.step('POST', '/submit', SUBMIT_TIMEOUT_MS);
    return expectShape<SubmitResult>(answer.json(), {
      status: 'string',
      tests_passed: 'number',
      tests_total: 'number',
    });
  }

  private async step(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    timeoutMs: number,
    send?: { body: string | Uint8Array; contentType: string },
  ): Promise<{ text: string; isJson: boolean; json(): unknown }> {
    const giveUpAt = Date.now() + RETRY_FOR_MS;
    for (;;) {
      try {
        return await this.stepOnce(method, path, timeoutMs, send);
      } catch (err) {
        const waitMs = err instanceof SandboxStepError ? err.retryAfterMs : undefined;
        if (waitMs === undefined || Date.now() + waitMs > giveUpAt) throw err;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }

  private async stepOnce(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    timeoutMs: number,
    send?: { body: string | Uint8Array; contentType: string },
  ): Promise<{ text: string; isJson: boolean; json(): unknown }> {
    const url = `${this.api}${path}`;
    let res: Dispatcher.ResponseData;
    let text: string;
    try {
      res = await request(url, {
        method,
        headers: {
          authorization: `Bearer ${this.access.token}`,
          'user-agent': USER_AGENT,
          accept: 'application/json, text/plain',
          ...(send ? { 'content-type': send.contentType } : {}),
        },
        body: send?.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      text = await res.body.text();
    } catch (err) {
      throw new SandboxStepError(
        `could not reach the sandbox API at ${url.split('?')[0]}: ${describeNetworkError(err)}`,
      );
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const retryAfter = Number(res.headers['retry-after']);
      const notRun =
        (res.statusCode === 503 || res.statusCode === 429) && Number.isFinite(retryAfter) && retryAfter >= 0;
      throw new SandboxStepError(detailOf(text), res.statusCode, notRun ? retryAfter * 1000 : undefined);
    }
    const contentType = String(res.headers['content-type'] ?? '');
    return {
      text,
      isJson: /^application\/(.+\+)?json\b/i.test(contentType),
      json() {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw unreadable('a body that is not JSON');
        }
      },
    };
  }
}

// `/` is encoded too: the path is one query value, and a proxy must not take it for a route.
function filesPath(path: string): string {
  return `/files?path=${encodeURIComponent(path)}`;
}

function expectShape<T>(value: unknown, fields: Record<string, 'string' | 'number'>): T {
  if (typeof value !== 'object' || value === null) throw unreadable('something other than a JSON object');
  for (const [field, type] of Object.entries(fields)) {
    if (typeof (value as Record<string, unknown>)[field] !== type) throw unreadable(`no ${type} ${field}`);
  }
  return value as T;
}

function unreadable(what: string): SandboxStepError {
  return new SandboxStepError(`the sandbox API answered ${what}`);
}
