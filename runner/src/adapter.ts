/** Runs the owner's agent command on one prompt: payload JSON on stdin, the answer on stdout. */
import { spawn, type ChildProcess } from 'node:child_process';
import { commandEnvironment } from './command-env';
import { MAX_RESPONSE_CHARS, type PromptDelivery, type PromptPayload } from './payload';
import { commandDeadline, sandboxEnv } from './sandbox-session';

export interface AgentCommand {
  command: string;
  args: string[];
  /**
   * What the command's environment starts from, before the contract variables; see
   * commandEnvironment. Without it, only the basic variables of the runner's environment.
   */
  env?: Record<string, string>;
}

export type AgentOutcome = { ok: true; response: string } | { ok: false; error: string };

export interface RunOptions {
  /** Aborting kills the command at once (the runner's forced stop); the outcome is then an error. */
  killSignal?: AbortSignal;
  /** Fill in ARENA_WORK_ID / ARENA_KIND when the payload has none (push takes them from X-Arena-Delivery). */
  workId?: string;
  kind?: string;
}

const MAX_STDERR_LINE_CHARS = 500;
// Only the last line of stderr is reported, so only the tail is kept.
export const STDERR_TAIL_CHARS = 8_192;
// Whitespace around the answer is trimmed away, so some is tolerated beyond the limit before giving up.
const MAX_RAW_STDOUT_CHARS = 2 * MAX_RESPONSE_CHARS;
// After SIGKILL the pipes close at once, unless something outside the process group holds them.
const CLOSE_GRACE_MS = 2_000;
// A command runs as the leader of its own process group, so the deadline kills what it started too,
// and a Ctrl-C meant for the runner does not reach it (running prompts are allowed to finish). Only a
// Ctrl-C in the microseconds between fork and setsid, while the process is being created, still can.
export const OWN_PROCESS_GROUP = process.platform !== 'win32';

/**
 * The adapter contract's variables, under the arena's names and the original service's; a coding
 * session's under the arena's names only, the original service having no such thing in pull mode.
 */
export function adapterEnv(
  payload: PromptPayload,
  ids: { workId?: string; kind?: string } = {},
): Record<string, string> {
  const values: Record<string, string | undefined> = {
    PROMPT: payload.prompt,
    PROMPT_ID: payload.prompt_id,
    CATEGORY: payload.category,
    DEADLINE_SECONDS: String(payload.deadline_seconds),
    WORK_ID: payload.work_id ?? ids.workId,
    KIND: payload.kind ?? ids.kind,
  };
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    env[`ARENA_${name}`] = value;
    env[`TESSERAX_${name}`] = value;
  }
  return payload.sandbox ? { ...env, ...sandboxEnv(payload.sandbox) } : env;
}

export function runAgentCommand(
  command: AgentCommand,
  delivery: PromptDelivery,
  opts: RunOptions = {},
): Promise<AgentOutcome> {
  const { payload } = delivery;
  if (opts.killSignal?.aborted) return Promise.resolve(failure('runner stopped before the command started'));
  // Never the runner's whole environment: it holds the agent secret, and a prompt can talk a
  // tool-using agent into printing whatever it can read.
  const env = { ...(command.env ?? commandEnvironment(process.env, { secret: '' })), ...adapterEnv(payload, opts) };
  const deadline = commandDeadline(payload);

  return new Promise<AgentOutcome>((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(command.command, command.args, {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: OWN_PROCESS_GROUP,
        windowsHide: true,
      });
    } catch (err) {
      resolve(failure(`could not start command ${command.command}: ${(err as Error).message}`));
      return;
    }

    let stdout = '';
    let stderrTail = '';
    let stopReason: string | undefined;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const settle = (outcome: AgentOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadlineTimer);
      clearTimeout(graceTimer);
      opts.killSignal?.removeEventListener('abort', onKill);
      resolve(outcome);
    };
    // The first reason wins: a command killed at the deadline is reported as late, not as killed.
    const stop = (reason: string) => {
      if (settled) return;
      stopReason ??= reason;
      killProcessTree(child);
      graceTimer ??= setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        settle(failure(stopReason!));
      }, CLOSE_GRACE_MS);
    };
    const onKill = () => stop('runner stopped before the command finished');

    const deadlineTimer = setTimeout(() => stop(deadline.missed), deadline.ms);
    opts.killSignal?.addEventListener('abort', onKill, { once: true });

    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      if (stopReason !== undefined) return;
      stdout += chunk;
      if (
        stdout.length > MAX_RAW_STDOUT_CHARS ||
        (stdout.length > MAX_RESPONSE_CHARS && stdout.trim().length > MAX_RESPONSE_CHARS)
      ) {
        stop(`output exceeds ${MAX_RESPONSE_CHARS} characters`);
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    // A command that exits without reading its stdin closes the pipe under us; that is not an error.
    child.stdin!.on('error', () => {});
    child.stdin!.end(delivery.raw);

    child.on('error', (err) => {
      // Also emitted when a kill fails; only a command that never started ends the run here.
      if (child.pid === undefined) settle(failure(`could not start command ${command.command}: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      if (stopReason !== undefined) return settle(failure(stopReason));
      settle(outcomeOf(stdout, stderrTail, code, signal));
    });
  });
}

function outcomeOf(stdout: string, stderr: string, code: number | null, signal: NodeJS.Signals | null): AgentOutcome {
  if (code !== 0) {
    const line = lastLine(stderr);
    const how = code !== null ? `exited with code ${code}` : `was killed by ${signal}`;
    return failure(`command ${how}${line ? `: ${line}` : ''}`);
  }
  const answer = stdout.trim();
  if (answer === '') return failure('command produced no output');
  if (answer.length > MAX_RESPONSE_CHARS) return failure(`output exceeds ${MAX_RESPONSE_CHARS} characters`);
  return { ok: true, response: answer };
}

/** The last non-empty line of a command's stderr, shortened to MAX_STDERR_LINE_CHARS. */
export function lastLine(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const last = lines.at(-1) ?? '';
  return last.length > MAX_STDERR_LINE_CHARS ? `${last.slice(0, MAX_STDERR_LINE_CHARS - 1)}…` : last;
}

/** SIGKILL the command and everything it started (its process group). */
export function killProcessTree(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    // The group outlives its leader while anything the command started is still running.
    if (OWN_PROCESS_GROUP) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

export function failure(error: string): AgentOutcome {
  return { ok: false, error };
}
