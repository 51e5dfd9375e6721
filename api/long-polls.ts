/**
 * Pull long-polls: once admitted, a poll waits for work on Node's own response, outside Fastify.
 *
 * Thousands of polls wait at once, each up to 50 s. Inside Fastify every one would keep its request,
 * reply, child logger and the handler's frames reachable the whole time (Fastify's `finish` listener
 * on the response refers to them). Handed over here, a waiting poll is one object (HeldPoll), one
 * timer and one listener beside Node's own request and response: no header set yet, and no promise,
 * as the process tracks every pending promise's async context. Its answer is the one Fastify would
 * give: the headers the app's hooks add (`setAnswerHeaders`, the request id, `Connection: close`
 * while draining) and those set on the reply before it was held (the rate limit's), a failure as the
 * error handler's `{detail}` answer, the request counted in the metrics and logged as Fastify logs one.
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
} from 'fastify';
import type { markAgentSeen } from '../infra/db/repositories/agent.repository';
import { requestBase } from './request-base';
import { returnWork, takeNextWork, type authenticatePullAgent, type SandboxKeys } from '../services/pull-work';
import { ApiError, errorAnswer } from './errors';
import { OpenPolls } from './open-polls';
import type { WorkNotifier, WorkSubscriber } from './work-notifier';

/** The route's pattern, as the metrics name it. */
export const WORK_NEXT_ROUTE = '/api/agents/:id/work/next';

/** Fastify's listener that logs a request and runs its onResponse hooks once the response finished. */
const FASTIFY_FINISH_LISTENER = 'onResFinished';

const JSON_TYPE = 'application/json; charset=utf-8';

export interface LongPollsOptions extends SandboxKeys {
  /**
   * Whether ARENA_PUBLIC_URL is set. When it is not, a coding session's `sandbox` URLs name the host
   * the poll reached the arena at, as the pull agent's `run_command` does (request-base.ts).
   */
  publicUrlSet?: boolean;
  db: EntityManager;
  notifier: Pick<WorkNotifier, 'subscribe' | 'unsubscribe'>;
  log: FastifyBaseLogger;
  metrics: Pick<FastifyInstance, 'openLongPolls' | 'recordRequest'>;
  /** Aborted when the API begins to shut down: waiting polls answer 204 at once. */
  draining: AbortSignal;
  /** Long-polls one agent may hold open here; a new one answers the oldest. */
  pollsPerAgent: number;
  /** Long-polls this process holds open at most; past that, 503. */
  maxOpenPolls: number;
  /** Sets what the app's hooks put on every answer besides the request id (security headers, the API catalog link). */
  setAnswerHeaders: (res: ServerResponse) => void;
  /** Who may poll: the pull service's check of an agent and its secret, with a look at its queue. */
  authenticate: typeof authenticatePullAgent;
  /** Records that the agent's runner is there to answer (an admitted poll): the agent is online. */
  markSeen: typeof markAgentSeen;
  /** The per-agent rate limit, counted once the secret checked out (a Fastify preHandler). */
  rateLimit: preHandlerAsyncHookHandler;
}

interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

const NO_WORK: Answer = { status: 204 };

export class LongPolls {
  /** Read by the polls: their admission, and the settings they answer with. */
  readonly open: OpenPolls;

  constructor(readonly options: LongPollsOptions) {
    this.open = new OpenPolls(options.pollsPerAgent, options.maxOpenPolls);
    // One listener for all: an EventTarget looks through all its listeners on every add and remove.
    options.draining.addEventListener('abort', () => this.open.endAll(), { once: true });
  }

  /**
   * Holds a long-poll: it answers when work comes, its wait runs out or it ends. The poll is
   * notified of its agent's work before the first look at the queue (which authentication makes),
   * so work queued while it looks still wakes it. A wrong secret, the rate limit and a process
   * holding as many polls as it takes (503) refuse it; admitted, it is taken over from Fastify.
   */
  async hold(
    request: FastifyRequest,
    reply: FastifyReply,
    { agentId, secret, waitSeconds }: HoldOptions,
  ): Promise<void> {
    const { db, notifier, authenticate, markSeen, rateLimit, maxOpenPolls } = this.options;
    const poll = new HeldPoll(this, agentId);
    notifier.subscribe(poll);
    let queued: boolean;
    try {
      // The agent, and whether it has queued work, in one query: most long-polls find none.
      queued = (await authenticate(db, agentId, secret, { lookAtQueue: true })).queued === true;
      await rateLimit.call(request.server, request, reply);
      // A runner there to answer, its secret checked: the agent is online (isAgentOnline). Before the
      // poll takes a place, so a failure here leaves nothing admitted.
      await markSeen(db, agentId);
      if (!this.open.admit(poll)) {
        throw new ApiError(
          503,
          `this API process has as many long-polls open as it takes (${maxOpenPolls}); poll again shortly`,
          { 'Retry-After': '5' },
        );
      }
    } catch (err) {
      poll.drop();
      throw err;
    }
    const res = reply.raw;
    reply.hijack();
    for (const event of ['finish', 'error'] as const) {
      for (const listener of res.listeners(event)) {
        if (listener.name === FASTIFY_FINISH_LISTENER) res.removeListener(event, listener as () => void);
      }
    }
    poll.start(res, {
      requestId: request.id,
      base: requestBase(request, {
        publicUrl: this.options.publicUrl,
        publicUrlSet: this.options.publicUrlSet ?? true,
      }),
      method: request.method,
      replyHeaders: reply.getHeaders(),
      startedAt: performance.now() - reply.elapsedTime,
      until: Date.now() + waitSeconds * 1000,
      queued,
    });
  }
}

export interface HoldOptions {
  agentId: number;
  /** The `X-Arena-Secret` the poll sent. */
  secret: string | string[] | undefined;
  waitSeconds: number;
}

/** What a held poll keeps of its request: no Fastify object. */
interface Held {
  requestId: string;
  /** The base URL the runner reached the arena at: a coding session's `sandbox` URLs start with it. */
  base: string;
  method: string;
  /** Headers set on the reply before the poll was held (the rate limit's). */
  replyHeaders: Record<string, string | number | string[] | undefined>;
  startedAt: number;
  until: number;
  queued: boolean;
}

/**
 * One long-poll, from its subscription to its answer. It claims when its agent's work may be
 * queued (at the first look or when notified; a notification that arrives while it claims makes
 * it claim again), and between claims waits on a timer, with nothing pending.
 */
export class HeldPoll implements WorkSubscriber {
  private notified = false;
  private ended = false;
  private timer: NodeJS.Timeout | undefined;
  private res: ServerResponse | undefined;
  private held: Held | undefined;
  private readonly onClose = () => this.end();

  constructor(
    private readonly polls: LongPolls,
    readonly agentId: number,
  ) {}

  /** Stops notifications for a poll that is not held (it was refused). */
  drop(): void {
    this.polls.options.notifier.unsubscribe(this);
  }

  notify(): void {
    this.notified = true;
    this.resume();
  }

  /**
   * Ends the poll (its runner left, a newer poll of its agent pushed it out, the API drains): it
   * answers 204 now, or once a claim under way found nothing (work it found is still handed out,
   * unless the runner left).
   */
  end(): void {
    this.ended = true;
    this.resume();
  }

  /** Called by `LongPolls.hold` once the poll is admitted and its response taken over. */
  start(res: ServerResponse, held: Held): void {
    this.res = res;
    this.held = held;
    this.notified ||= held.queued;
    res.on('close', this.onClose);
    if (this.polls.options.draining.aborted) this.ended = true;
    this.polls.options.metrics.openLongPolls.inc();
    void this.step();
  }

  /** Goes on from a wait: a wait is the only time a timer is set. */
  private resume(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    void this.step();
  }

  private static timeUp(poll: HeldPoll): void {
    poll.timer = undefined;
    void poll.step();
  }

  /** Claims while notified, then answers or waits. Never rejects: a failure is answered. */
  private async step(): Promise<void> {
    const res = this.res!;
    const held = this.held!;
    const { db, encryptionKey } = this.polls.options;
    try {
      for (;;) {
        // Never lease to a runner that has gone: the item would sit leased until its deadline.
        if (this.ended) return this.finish(NO_WORK);
        if (this.notified) {
          this.notified = false;
          const work = await takeNextWork(db, this.agentId, { publicUrl: held.base, encryptionKey });
          // The response is destroyed once the runner has left.
          if (work && res.destroyed) {
            await returnWork(db, work.id);
            return this.finish(NO_WORK);
          }
          if (work) return this.finish({ status: 200, body: JSON.stringify(work.payload) });
          continue;
        }
        const left = held.until - Date.now();
        if (left <= 0) return this.finish(NO_WORK);
        this.timer = setTimeout(HeldPoll.timeUp, left, this);
        return;
      }
    } catch (err) {
      const log = this.polls.options.log.child({ reqId: held.requestId });
      const { status, detail, headers } = errorAnswer(err as FastifyError, { log, headers: {} });
      this.finish({ status, body: JSON.stringify({ detail }), headers });
    }
  }

  private finish({ status, body, headers = {} }: Answer): void {
    const res = this.res!;
    const held = this.held!;
    const { notifier, metrics, draining, setAnswerHeaders, log } = this.polls.options;
    res.off('close', this.onClose);
    notifier.unsubscribe(this);
    this.polls.open.release(this);
    metrics.openLongPolls.dec();
    // A runner that left gets nothing, and Fastify logs no request whose response never finished.
    if (res.destroyed) return;
    setAnswerHeaders(res);
    res.setHeader('X-Request-Id', held.requestId);
    for (const [name, value] of Object.entries({ ...held.replyHeaders, ...headers })) {
      if (value !== undefined) res.setHeader(name, value);
    }
    if (draining.aborted) res.setHeader('Connection', 'close');
    if (body !== undefined) {
      res.setHeader('Content-Type', JSON_TYPE);
      res.setHeader('Content-Length', Buffer.byteLength(body));
    }
    res.writeHead(status);
    res.end(body);
    const seconds = (performance.now() - held.startedAt) / 1000;
    metrics.recordRequest(held.method, WORK_NEXT_ROUTE, status, seconds);
    log.info({ reqId: held.requestId, res: { statusCode: status }, responseTime: seconds * 1000 }, 'request completed');
  }
}
