/**
 * An agent process kept across prompts (`arena-runner run --keep-running`): started once, it reads
 * one prompt per line on stdin (the payload a per-prompt command reads, as one line of JSON) and
 * answers each with one line on stdout, `{"response": "..."}` or `{"error": "..."}`. An agent that
 * loads a large library or a model pays for it once instead of on every prompt.
 *
 * A process that misses a prompt's deadline, answers something else, or exits is stopped, and the
 * next prompt starts a new one: its state after a missed answer is unknown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  failure,
  killProcessTree,
  lastLine,
  OWN_PROCESS_GROUP,
  STDERR_TAIL_CHARS,
  type AgentCommand,
  type AgentOutcome,
  type RunOptions,
} from './adapter';
import { commandEnvironment } from './command-env';
import type { Log } from './log';
import { MAX_RESPONSE_CHARS, type PromptDelivery } from './payload';
import { commandDeadline } from './sandbox-session';

/** An answer line may carry a response of MAX_RESPONSE_CHARS with every character escaped. */
const MAX_LINE_CHARS = 7 * MAX_RESPONSE_CHARS;
/** What stands for a line past MAX_LINE_CHARS: no answer line parses as it. */
const OVERLONG = '\u0000';
/** How long a process whose stdin was closed may take to exit before it is killed. */
const EXIT_GRACE_MS = 2_000;

interface Running {
  child: ChildProcess;
  /** Lines the process printed that no prompt has taken yet. */
  lines: string[];
  /** The prompt waiting for a line, if any. */
  waiting?: (line: string) => void;
  exited: Promise<string>;
  stderrTail: string;
}

export class LineAgent {
  private running: Running | undefined;

  constructor(
    private readonly command: AgentCommand,
    private readonly log: Log,
  ) {}

  /** Sends one prompt to the process (starting it if none runs) and waits for its answer line. */
  async answer(delivery: PromptDelivery, opts: RunOptions = {}): Promise<AgentOutcome> {
    if (opts.killSignal?.aborted) return failure('runner stopped before the command started');
    const deadline = commandDeadline(delivery.payload);
    let agent: Running;
    try {
      agent = this.running ?? this.start();
    } catch (err) {
      return failure(`could not start command ${this.command.command}: ${(err as Error).message}`);
    }
    // The payload as a per-prompt command reads it, on one line, with the ids push mode learns from headers.
    const line = JSON.stringify({
      ...(JSON.parse(delivery.raw) as Record<string, unknown>),
      ...(delivery.payload.work_id === undefined && opts.workId ? { work_id: opts.workId } : {}),
      ...(delivery.payload.kind === undefined && opts.kind ? { kind: opts.kind } : {}),
    });
    agent.child.stdin!.write(`${line}\n`);

    let timer: NodeJS.Timeout | undefined;
    let onKill: (() => void) | undefined;
    const stopped = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(deadline.missed), deadline.ms);
      onKill = () => resolve('runner stopped before the command finished');
      opts.killSignal?.addEventListener('abort', onKill, { once: true });
    });
    const answered = new Promise<string>((resolve) => {
      const ready = agent.lines.shift();
      if (ready !== undefined) resolve(ready);
      else agent.waiting = resolve;
    });
    const { outcome, understood } = await Promise.race([
      answered.then((line) =>
        line === OVERLONG
          ? garbled(`the agent process answered a line of more than ${MAX_LINE_CHARS} characters`)
          : answerOfLine(line),
      ),
      agent.exited.then((how) => garbled(`the agent process ${how}${stderrEnding(agent.stderrTail)}`)),
      stopped.then(garbled),
    ]);
    clearTimeout(timer);
    if (onKill) opts.killSignal?.removeEventListener('abort', onKill);
    agent.waiting = undefined;
    // After a late, garbled or missing answer the process's state is unknown: the next prompt gets a new one.
    if (!understood && this.running === agent) this.stop(agent);
    return outcome;
  }

  /** Ends the process: its stdin closes (its cue to exit), and it is killed if it lingers. */
  async close(): Promise<void> {
    const agent = this.running;
    if (!agent) return;
    this.running = undefined;
    agent.child.stdin!.end();
    const grace = new Promise<void>((resolve) => setTimeout(resolve, EXIT_GRACE_MS).unref());
    if ((await Promise.race([agent.exited.then(() => 'exited'), grace])) !== 'exited') killProcessTree(agent.child);
    await agent.exited;
  }

  private start(): Running {
    // Never the runner's whole environment: it holds the agent secret. The prompt's own variables
    // change with each prompt, so they are in its line, not in the environment.
    const env = this.command.env ?? commandEnvironment(process.env, { secret: '' });
    const child = spawn(this.command.command, this.command.args, {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: OWN_PROCESS_GROUP,
      windowsHide: true,
    });
    const agent: Running = {
      child,
      lines: [],
      stderrTail: '',
      exited: new Promise<string>((resolve) => {
        child.once('error', (err) => resolve(`could not start: ${err.message}`));
        child.once('close', (code, signal) =>
          resolve(code !== null ? `exited with code ${code}` : `was killed by ${signal}`),
        );
      }),
    };
    // A process that exits closes its stdin under us: not an error of ours.
    child.stdin!.on('error', () => {});
    const deliver = (line: string) => {
      if (line.trim() === '') return;
      const take = agent.waiting;
      agent.waiting = undefined;
      if (take) take(line);
      else agent.lines.push(line);
    };
    // Lines by hand rather than readline's, which would hold a line of any length in memory.
    let partial = '';
    let overlong = false;
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      for (const part of parts) {
        // A line past the limit is answered as garbled: the prompt fails, the process is replaced.
        deliver(overlong ? OVERLONG : part.replace(/\r$/, ''));
        overlong = false;
      }
      if (partial.length > MAX_LINE_CHARS) {
        partial = '';
        overlong = true;
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      agent.stderrTail = (agent.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    void agent.exited.then((how) => {
      if (this.running !== agent) return;
      this.running = undefined;
      this.log(`the agent process ${how}${stderrEnding(agent.stderrTail)}; the next prompt starts it again`);
    });
    this.running = agent;
    this.log(`started the agent process (pid ${child.pid ?? '?'}); it answers one line per prompt`);
    return agent;
  }

  private stop(agent: Running): void {
    if (this.running === agent) this.running = undefined;
    killProcessTree(agent.child);
  }
}

/** An answer, and whether the process answered as agreed (otherwise it is replaced). */
interface LineAnswer {
  outcome: AgentOutcome;
  understood: boolean;
}

const garbled = (error: string): LineAnswer => ({ outcome: failure(error), understood: false });

/** One answer line: `{"response": "..."}` or `{"error": "..."}`, and nothing else. */
export function answerOfLine(line: string): LineAnswer {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    value = undefined;
  }
  const answer = value as { response?: unknown; error?: unknown } | undefined;
  if (typeof answer?.error === 'string' && answer.error.trim() !== '')
    return { outcome: failure(answer.error.trim()), understood: true };
  if (typeof answer?.response !== 'string')
    return garbled('the agent process answered a line that is not {"response": "..."} or {"error": "..."}');
  const response = answer.response.trim();
  if (response === '') return { outcome: failure('the agent process answered an empty response'), understood: true };
  if (response.length > MAX_RESPONSE_CHARS)
    return { outcome: failure(`output exceeds ${MAX_RESPONSE_CHARS} characters`), understood: true };
  return { outcome: { ok: true, response }, understood: true };
}

/** The last line the process wrote to stderr, as the end of a sentence. */
function stderrEnding(tail: string): string {
  const line = lastLine(tail);
  return line === '' ? '' : `: ${line}`;
}
