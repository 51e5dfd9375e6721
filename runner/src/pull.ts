/** `arena-runner run`: long-polls the arena for work, runs the agent command on it, posts the result. */
import { runAgentCommand, type AgentCommand, type AgentOutcome, type RunOptions } from './adapter';
import { LineAgent } from './line-agent';
import { ArenaClient, RunnerFatalError, type NextWork, type PostedResult, type ResultBody } from './arena-client';
import { Backoff, formatDelay, pause, type BackoffOptions } from './backoff';
import { stderrLog, type Log } from './log';
import { describePayload, type PromptDelivery } from './payload';
import { commandDeadline } from './sandbox-session';

export interface PullLoopOptions {
  baseUrl: string;
  agentId: string;
  secret: string;
  command: AgentCommand;
  /** How many prompts may run at once; default 1. */
  concurrency?: number;
  /** Seconds the arena may hold each long-poll; default 25. */
  waitSeconds?: number;
  /** Stop: no new work is fetched; running prompts finish (within their deadline) and are posted. */
  signal?: AbortSignal;
  /** Forced stop: running commands are killed at once and nothing more is posted. */
  killSignal?: AbortSignal;
  log?: Log;
  /** Reconnect backoff; tests shorten it. */
  backoff?: BackoffOptions;
  /**
   * Keep the command running across prompts (`--keep-running`): one process per concurrent prompt,
   * a prompt per line on its stdin, an answer per line on its stdout (line-agent.ts).
   */
  keepRunning?: boolean;
}

export const DEFAULT_WAIT_SECONDS = 25;
// An arena that answers 204 at once (or --wait 0) would otherwise be asked again in a tight loop.
const MIN_EMPTY_POLL_INTERVAL_MS = 1_000;
const MAX_RESULT_ATTEMPTS = 5;
const RESULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 5_000 };

type WorkItem = Extract<NextWork, { kind: 'work' }>;

interface Loop {
  client: ArenaClient;
  waitSeconds: number;
  polling: AbortSignal;
  killSignal?: AbortSignal;
  log: Log;
  backoff?: BackoffOptions;
  running: number;
}

/**
 * Resolves once stopped and every running prompt has been posted; rejects with RunnerFatalError
 * when the arena refuses the agent (wrong secret, unknown agent, not in pull mode).
 *
 * Concurrency is N independent long-poll loops, each holding at most one prompt. A loop only asks
 * for work when it is free to start it at once: a work item's deadline runs from the moment it is
 * leased, so a single poller feeding a queue would lease prompts that then wait for a free slot.
 */
export async function runPullLoop(opts: PullLoopOptions): Promise<void> {
  const log = opts.log ?? stderrLog;
  const concurrency = opts.concurrency ?? 1;
  const polling = new AbortController();
  const loop: Loop = {
    client: new ArenaClient(opts),
    waitSeconds: opts.waitSeconds ?? DEFAULT_WAIT_SECONDS,
    polling: polling.signal,
    killSignal: opts.killSignal,
    log,
    backoff: opts.backoff,
    running: 0,
  };
  const onStop = () => {
    if (polling.signal.aborted) return;
    polling.abort();
    if (loop.running > 0) log(`stopping: finishing ${plural(loop.running, 'running prompt')} first`);
  };
  const stopSignals = [opts.signal, opts.killSignal].filter((s): s is AbortSignal => s !== undefined);
  for (const s of stopSignals) {
    if (s.aborted) onStop();
    else s.addEventListener('abort', onStop, { once: true });
  }

  try {
    const unread = await loop.client.checkProtocol();
    if (unread) log(`could not check the arena's protocol version (${unread}); going on`);
  } catch (err) {
    await loop.client.close();
    throw err;
  }
  log(`agent ${opts.agentId}: waiting for work from ${opts.baseUrl} (concurrency ${concurrency})`);
  const kept: LineAgent[] = [];
  const answerer = (): Answerer => {
    if (!opts.keepRunning) return (delivery, run) => runAgentCommand(opts.command, delivery, run);
    const agent = new LineAgent(opts.command, log);
    kept.push(agent);
    return (delivery, run) => agent.answer(delivery, run);
  };
  const loops = Array.from({ length: concurrency }, () =>
    pollAndAnswer(loop, answerer()).catch((err: unknown) => {
      // One refusal or failure ends every loop; prompts already running still finish.
      polling.abort();
      throw err;
    }),
  );
  const ended = await Promise.allSettled(loops);
  for (const s of stopSignals) s.removeEventListener('abort', onStop);
  await Promise.all(kept.map((agent) => agent.close()));
  await loop.client.close();

  const failures = ended.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  const fatal = failures.find((e) => e instanceof RunnerFatalError);
  if (fatal ?? failures[0]) throw fatal ?? failures[0];
  log('stopped');
}

/** Answers one prompt: a command per prompt, or the line of a process kept running. */
type Answerer = (delivery: PromptDelivery, opts: RunOptions) => Promise<AgentOutcome>;

async function pollAndAnswer(loop: Loop, answerWith: Answerer): Promise<void> {
  const backoff = new Backoff(loop.backoff);
  while (!loop.polling.aborted) {
    const askedAt = Date.now();
    const next = await loop.client.nextWork(loop.waitSeconds, loop.polling);
    switch (next.kind) {
      case 'stopped':
        return;
      case 'none':
        backoff.reset();
        await pause(MIN_EMPTY_POLL_INTERVAL_MS - (Date.now() - askedAt), loop.polling);
        break;
      case 'retry': {
        const delay = next.retryAfterMs ?? backoff.nextDelayMs();
        loop.log(`work/next failed (${next.reason}); retrying in ${formatDelay(delay)}`);
        await pause(delay, loop.polling);
        break;
      }
      case 'work':
        backoff.reset();
        await answer(loop, next, answerWith);
        break;
    }
  }
}

async function answer(loop: Loop, work: WorkItem, answerWith: Answerer): Promise<void> {
  const { payload } = work.delivery;
  const receivedAt = performance.now();
  const deadlineAt = Date.now() + commandDeadline(payload).ms;
  loop.running += 1;
  try {
    loop.log(`${work.workId}: received ${describePayload(payload)}`);
    const outcome = await answerWith(work.delivery, { killSignal: loop.killSignal });
    const latencyMs = Math.round(performance.now() - receivedAt);
    if (loop.killSignal?.aborted) {
      loop.log(`${work.workId}: ${describeOutcome(outcome, latencyMs)}; not posted, the runner is stopping`);
      return;
    }
    const body: ResultBody = outcome.ok
      ? { response: outcome.response, latency_ms: latencyMs }
      : { error: outcome.error, latency_ms: latencyMs };
    const posted = await postResult(loop, work.workId, body, deadlineAt);
    // Said once the arena has it, as the arena recorded it: a session it had ended is not "answered".
    if (posted?.kind === 'recorded')
      loop.log(`${work.workId}: ${describeRecorded(outcome, latencyMs, posted, payload.sandbox !== undefined)}`);
    else if (posted?.kind === 'refused')
      loop.log(
        `${work.workId}: ${describeOutcome(outcome, latencyMs)}, but the arena did not record it (HTTP ${posted.status}): ${posted.detail}`,
      );
  } finally {
    loop.running -= 1;
  }
}

// The first attempt is always made; retries only while the arena could still accept the result.
async function postResult(
  loop: Loop,
  workId: string,
  body: ResultBody,
  deadlineAt: number,
): Promise<Exclude<PostedResult, { kind: 'retry' }> | undefined> {
  const backoff = new Backoff(RESULT_BACKOFF);
  for (let attempt = 1; ; attempt += 1) {
    const posted = await loop.client.postResult(workId, body);
    if (posted.kind !== 'retry') return posted;
    const delay = posted.retryAfterMs ?? backoff.nextDelayMs();
    if (attempt >= MAX_RESULT_ATTEMPTS || Date.now() + delay >= deadlineAt || loop.killSignal?.aborted) {
      loop.log(
        `${workId}: could not post the result (${posted.reason}); giving up after ${plural(attempt, 'attempt')}`,
      );
      return undefined;
    }
    loop.log(`${workId}: posting the result failed (${posted.reason}); retrying in ${formatDelay(delay)}`);
    await pause(delay, loop.killSignal);
  }
}

function describeOutcome(outcome: AgentOutcome, latencyMs: number): string {
  return outcome.ok ? `answered in ${latencyMs} ms` : `error after ${latencyMs} ms: ${outcome.error}`;
}

/** The command's outcome as the arena recorded it: a coding session's own status, or a prompt's. */
export function describeRecorded(
  outcome: AgentOutcome,
  latencyMs: number,
  recorded: { status?: string; error?: string | null },
  codingSession: boolean,
): string {
  const { status, error } = recorded;
  const why = error ? `: ${error}` : '';
  if (codingSession) {
    const command = `the command ${outcome.ok ? 'finished' : 'failed'} after ${latencyMs} ms`;
    if (status === undefined) return `${command}; its summary is recorded`;
    if (status === 'pending' || status === 'running')
      return `${command}; the session goes on until it is submitted or its deadline passes`;
    return `${command}; the session ${status === 'error' ? 'ended as an error' : status}${why}`;
  }
  if (status === undefined || (status === 'answered') === outcome.ok) return describeOutcome(outcome, latencyMs);
  return `${describeOutcome(outcome, latencyMs)}; the arena recorded it as ${status}${why}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
