/**
 * A held long-poll, on a real Fastify server over loopback: while it waits, Fastify's request and
 * reply can be collected; its answer carries what Fastify's would (headers, metrics, log line).
 * The queue itself is in the integration tests (test/deliveries/pull.test.ts).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import net, { type AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import Fastify, { type FastifyInstance } from 'fastify';
import { Gauge } from 'prom-client';
import { ApiError } from '../../api/errors';
import { LongPolls, WORK_NEXT_ROUTE, type HeldPoll } from '../../api/long-polls';
import type { WorkSubscriber } from '../../api/work-notifier';
import type { AgentCredentialsRow } from '../../infra/db/repositories/agent.repository';
import { until } from '../support/wait';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

/** A database that answers every statement with `execute` (claimWork's is the only one these polls make). */
const database = (execute: () => Promise<unknown[]>) =>
  ({ getConnection: () => ({ execute }), getTransactionContext: () => undefined }) as unknown as EntityManager;

const databaseDown = database(() =>
  Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
);

interface Harness {
  url: string;
  app: FastifyInstance;
  draining: AbortController;
  /** Polls subscribed to their agent's notifications right now. */
  subscribers: Set<WorkSubscriber>;
  /** Fastify's request and reply of every poll, held weakly. */
  fastifyObjects: Array<WeakRef<object>>;
  recorded: Array<[string, string, number]>;
  logLines: Array<Record<string, unknown>>;
  /** Polls that ended and gave their subscription back. */
  left: () => number;
  open: () => Promise<number>;
}

async function harness({
  queued = false,
  db = databaseDown,
  refusal,
}: { queued?: boolean; db?: EntityManager; refusal?: Error } = {}): Promise<Harness> {
  const logLines: Array<Record<string, unknown>> = [];
  const app = Fastify({ logger: { stream: { write: (line: string) => logLines.push(JSON.parse(line)) } } });
  const draining = new AbortController();
  const openLongPolls = new Gauge({ name: 'open_long_polls', help: 'held polls', registers: [] });
  const recorded: Harness['recorded'] = [];
  const subscribers = new Set<WorkSubscriber>();
  let left = 0;
  const notifier = {
    subscribe: (sub: WorkSubscriber) => void subscribers.add(sub),
    unsubscribe: (sub: WorkSubscriber) => {
      if (subscribers.delete(sub)) left++;
    },
  };
  const longPolls = new LongPolls({
    db,
    notifier,
    log: app.log,
    metrics: { openLongPolls, recordRequest: (method, route, status) => recorded.push([method, route, status]) },
    draining: draining.signal,
    pollsPerAgent: 4,
    maxOpenPolls: 10,
    setAnswerHeaders: (res) => res.setHeader('link', '</.well-known/api-catalog>; rel="api-catalog"'),
    publicUrl: 'http://127.0.0.1',
    encryptionKey: Buffer.alloc(32),
    authenticate: async () => {
      if (refusal) throw refusal;
      return { queued } as AgentCredentialsRow;
    },
    markSeen: async () => undefined,
    // As the rate limit does: a header set on the reply before the poll is held.
    rateLimit: async (_request, reply) => void reply.header('x-ratelimit-limit', '600'),
  });
  const fastifyObjects: Array<WeakRef<object>> = [];
  app.get<{ Querystring: { wait: string } }>('/api/agents/:id/work/next', async (request, reply) => {
    fastifyObjects.push(new WeakRef(request), new WeakRef(reply));
    await longPolls.hold(request, reply, { agentId: 1, secret: 'the secret', waitSeconds: Number(request.query.wait) });
    return reply;
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/agents/1/work/next`,
    app,
    draining,
    subscribers,
    fastifyObjects,
    recorded,
    logLines,
    left: () => left,
    open: async () => (await openLongPolls.get()).values[0]?.value ?? 0,
  };
}

describe('a held long-poll', () => {
  let h: Harness;
  afterEach(() => h.app.close());

  it("lets Fastify's request and reply go while it waits, then answers as Fastify would", async () => {
    h = await harness();
    const answer = fetch(`${h.url}?wait=50`, { headers: { 'x-request-id': 'poll-1' } });
    await until(async () => (await h.open()) === 1);
    // What holds them otherwise is Fastify's own listener on the response, which LongPolls.hold
    // removes by its name: a Fastify that renamed or reshaped it fails here, not silently.
    await until(
      async () => {
        collectGarbage();
        return h.fastifyObjects.every((ref) => ref.deref() === undefined);
      },
      "Fastify's request and reply to be collected while the poll waits",
      5_000,
    );
    expect(h.subscribers.size).toBe(1);
    for (const poll of h.subscribers) (poll as HeldPoll).end();
    const res = await answer;
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('x-request-id')).toBe(h.logLines.find((l) => l.msg === 'incoming request')!.reqId);
    expect(res.headers.get('link')).toBe('</.well-known/api-catalog>; rel="api-catalog"');
    expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    expect(h.recorded).toEqual([['GET', WORK_NEXT_ROUTE, 204]]);
    expect(h.logLines.filter((l) => l.msg === 'request completed')).toEqual([
      expect.objectContaining({ res: { statusCode: 204 }, responseTime: expect.any(Number) }),
    ]);
    expect(h.left()).toBe(1);
    expect(await h.open()).toBe(0);
  });

  it('answers 204 when its wait runs out', async () => {
    h = await harness();
    const started = Date.now();
    const res = await fetch(`${h.url}?wait=1`);
    expect(res.status).toBe(204);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('answers 204 with Connection: close at once when the API begins to drain', async () => {
    h = await harness();
    const answer = fetch(`${h.url}?wait=50`);
    await until(async () => (await h.open()) === 1);
    h.draining.abort();
    const res = await answer;
    expect(res.status).toBe(204);
    expect(res.headers.get('connection')).toBe('close');
    // One that arrives while draining is not held either.
    expect((await fetch(`${h.url}?wait=50`)).status).toBe(204);
  });

  it('is refused as its authentication says, and is no longer notified', async () => {
    h = await harness({ refusal: new ApiError(403, 'invalid or missing X-Arena-Secret') });
    const res = await fetch(`${h.url}?wait=50`);
    expect(res.status).toBe(403);
    expect(h.subscribers.size).toBe(0);
    expect(h.left()).toBe(1);
    expect(await h.open()).toBe(0);
  });

  it('gives its place back and logs no answer when its runner leaves', async () => {
    h = await harness();
    const { port, pathname } = new URL(h.url);
    const runner = net.connect(Number(port), '127.0.0.1');
    runner.write(`GET ${pathname}?wait=50 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await until(async () => (await h.open()) === 1);
    runner.destroy();
    await until(async () => h.left() === 1);
    expect(await h.open()).toBe(0);
    expect(h.recorded).toEqual([]);
    expect(h.logLines.filter((l) => l.msg === 'request completed')).toEqual([]);
  });

  it('claims again when notified while it claims, then waits without claiming', async () => {
    let claims = 0;
    h = await harness({
      queued: true,
      db: database(async () => {
        claims++;
        // Work queued (and announced) while the first claim looks: the claim found none.
        if (claims === 1) for (const poll of h.subscribers) poll.notify();
        return [];
      }),
    });
    const answer = fetch(`${h.url}?wait=50`);
    await until(async () => claims === 2);
    h.draining.abort();
    expect((await answer).status).toBe(204);
    expect(claims).toBe(2);
  });

  it('hands out claimed work as its payload, in one statement when it is not a coding session', async () => {
    let statements = 0;
    const claimed = {
      id: 41,
      kind: 'sandbox',
      category: 'math',
      prompt_id: 7,
      text: 'What is 6 x 7?',
      remaining_seconds: 30,
      redelivery_of_id: null,
      coding: false,
    };
    h = await harness({ queued: true, db: database(async () => (statements++ === 0 ? [claimed] : [])) });
    const res = await fetch(`${h.url}?wait=50`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      prompt_id: 7,
      prompt: 'What is 6 x 7?',
      category: 'math',
      deadline_seconds: 30,
      kind: 'sandbox',
      work_id: 'sandbox-41',
    });
    expect(statements).toBe(1);
    expect(h.recorded).toEqual([['GET', WORK_NEXT_ROUTE, 200]]);
  });

  it('answers a failure while claiming in the {detail} shape, with Retry-After', async () => {
    h = await harness({ queued: true });
    const res = await fetch(`${h.url}?wait=50`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({ detail: 'the database is unavailable; try again shortly' });
    expect(h.recorded).toEqual([['GET', WORK_NEXT_ROUTE, 503]]);
    expect(h.logLines.find((l) => l.msg === 'database unavailable')).toMatchObject({ reqId: expect.any(String) });
    expect(h.left()).toBe(1);
  });
});
