import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/activity';
import { createActivities } from '../../activities';
import { ARRIVAL_GRACE_MS, HEARTBEAT_EVERY_MS } from '../../activities/deliveries';
import { WebhookClient } from '../../infra/webhook/client';
import { answer, closedPortUrl, hang, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type TestApp } from '../support/test-app';
import { SandboxRuntime } from '../../infra/sandbox/runtime';
import { codingSessionsTotal } from '../../infra/metrics';
import { until } from '../support/wait';

// The delivery activities on their own, in a mock activity context, against the real database and a real agent.
let t: TestApp;
let server: TestAgentServer;
let webhooks: WebhookClient;
let activities: ReturnType<typeof createActivities>;
let agentId: number;
let sessionSeq = 0;

beforeAll(async () => {
  t = await startTestApp();
  server = await startAgentServer(answer(200, { response: 'from the agent' }));
  webhooks = new WebhookClient({ allowPrivate: true });
  activities = createActivities({
    orm: t.orm,
    webhooks,
    encryptionKey: t.config.encryptionKey,
    arena: t.config.arena,
    publicUrl: t.config.publicUrl,
    sandbox: new SandboxRuntime(t.config.sandbox, 'no-coding-sessions-here'),
  });
  const owner = await register(t.app);
  agentId = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'a', webhook_url: server.url },
    })
  ).json().id;
});
afterAll(async () => {
  await webhooks.close();
  await server.close();
  await t.close();
});

const sql = <T = Record<string, unknown>>(q: string, p: unknown[] = []) => t.orm.em.getConnection().execute<T[]>(q, p);
async function newSession(kind = 'sandbox'): Promise<number> {
  const [prompt] = await sql<{ id: number }>(
    `insert into prompts (source, category, text, created_at) values ('sandbox', 'c', ?, now()) returning id`,
    [`p${++sessionSeq}`],
  );
  const [row] = await sql<{ id: number }>(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, created_at) values (?, ?, ?, 'push', 'c', 30, 'pending', now()) returning id`,
    [agentId, kind, prompt!.id],
  );
  return row!.id;
}
const run = <R>(fn: () => Promise<R>): Promise<R> => new MockActivityEnvironment().run(fn) as Promise<R>;
const deadlineAt = () => Date.now() + 10_000;
const requestsFor = (sessionId: number) =>
  server.received.filter((r) => r.headers['x-arena-delivery'] === `sandbox-${sessionId}`);

describe('pushPrompt', () => {
  it('sends once; an attempt that finds the session already claimed records the interruption instead of sending', async () => {
    const id = await newSession();
    expect(await run(() => activities.pushPrompt({ sessionId: id, deadlineAt: deadlineAt() }))).toEqual({
      status: 'answered',
      response: 'from the agent',
      latencyMs: expect.any(Number),
    });
    expect(await run(() => activities.pushPrompt({ sessionId: id, deadlineAt: deadlineAt() }))).toEqual({
      status: 'error',
      error: 'delivery interrupted after the request may have reached the agent; it is not sent twice',
      latencyMs: 0,
      // Not held against the agent's run of failures: the interruption was ours.
      notAgentsFault: true,
    });
    expect(requestsFor(id)).toHaveLength(1);
  });

  it('releases the claim and fails retryably when the request never left', async () => {
    const id = await newSession();
    await sql(`update agents set webhook_url = ? where id = ?`, [await closedPortUrl(), agentId]);
    try {
      const failure = await run(() => activities.pushPrompt({ sessionId: id, deadlineAt: deadlineAt() })).catch(
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure).toMatchObject({
        type: 'WebhookNeverSent',
        nonRetryable: false,
        message: expect.stringMatching(/refused/),
      });
      const [row] = await sql<{ push_state: string | null; error: string }>(
        `select push_state, error from sessions where id = ?`,
        [id],
      );
      expect(row).toEqual({ push_state: null, error: expect.stringMatching(/refused/) });
    } finally {
      await sql(`update agents set webhook_url = ? where id = ?`, [server.url, agentId]);
    }
    // Released, so the next attempt sends it.
    expect((await run(() => activities.pushPrompt({ sessionId: id, deadlineAt: deadlineAt() }))).status).toBe(
      'answered',
    );
  });
});

describe('deliverPush', () => {
  const input = (sessionId: number) => ({
    sessionId,
    kind: 'sandbox' as const,
    deadlineSeconds: 30,
    deadlineAt: deadlineAt(),
    answerWithinMs: 30_000,
  });
  const statusOf = async (id: number) =>
    (
      await sql<{ status: string; response: string | null }>(`select status, response from sessions where id = ?`, [id])
    )[0];

  it('sends the prompt and records the answer in one call; a retry sends nothing and returns what was recorded', async () => {
    const id = await newSession();
    expect(await run(() => activities.deliverPush(input(id)))).toEqual({ status: 'answered' });
    expect(await statusOf(id)).toEqual({ status: 'answered', response: 'from the agent' });
    expect(await run(() => activities.deliverPush(input(id)))).toEqual({ status: 'answered' });
    expect(requestsFor(id)).toHaveLength(1);
  });

  it("runs only a push delivery's own statements: no coding-session lookup, no work-item statements", async () => {
    const id = await newSession();
    const statements: string[] = [];
    const knex = t.orm.em.getConnection().getKnex();
    const onQuery = (query: { sql: string }) => statements.push(query.sql);
    knex.on('query', onQuery);
    try {
      expect(await run(() => activities.deliverPush(input(id)))).toEqual({ status: 'answered' });
    } finally {
      knex.off('query', onQuery);
    }
    expect(statements.filter((sql) => /work_items|coding_sessions/.test(sql))).toEqual([]);
    // The claim and the outcome, each one statement (the outcome in its transaction), and the run of failures.
    expect(statements.filter((sql) => !/^(begin|commit|rollback)/i.test(sql.trim()))).toHaveLength(3);
  });

  it('gives the request the deadline plus the time the prompt takes to arrive', async () => {
    const requests: { timeoutMs: number }[] = [];
    const recording = {
      post: (req: { timeoutMs: number }) => {
        requests.push(req);
        const now = Date.now();
        return Promise.resolve({
          kind: 'response',
          status: 200,
          body: '{"response":"ok"}',
          sentAt: now,
          receivedAt: now,
        });
      },
    } as unknown as WebhookClient;
    const withRecording = createActivities({
      orm: t.orm,
      webhooks: recording,
      encryptionKey: t.config.encryptionKey,
      arena: t.config.arena,
      publicUrl: t.config.publicUrl,
      sandbox: new SandboxRuntime(t.config.sandbox, 'no-coding-sessions-here'),
    });
    const id = await newSession();
    expect(await run(() => withRecording.deliverPush(input(id)))).toEqual({ status: 'answered' });
    expect(requests.map((r) => r.timeoutMs)).toEqual([30_000 + ARRIVAL_GRACE_MS]);
    expect(ARRIVAL_GRACE_MS).toBeGreaterThan(0);
  });

  it('sends no heartbeat (a billable action) for an agent that answers within a few seconds', async () => {
    const id = await newSession();
    // Answers after 2.5 s: past the first heartbeat of a 2-second cadence, well before a 5-second one.
    server.behave((_req, res) => {
      setTimeout(() => answer(200, { response: 'after a while' })(_req, res), 2_500);
    });
    try {
      const env = new MockActivityEnvironment();
      let heartbeats = 0;
      env.on('heartbeat', () => heartbeats++);
      expect(await env.run(() => activities.deliverPush(input(id)))).toEqual({ status: 'answered' });
      expect(heartbeats).toBe(0);
      expect(HEARTBEAT_EVERY_MS).toBeLessThanOrEqual(5_000);
    } finally {
      server.behave(answer(200, { response: 'from the agent' }));
    }
  });

  it('records a cancel when the workflow cancels it mid-request, not the aborted request as an error', async () => {
    const id = await newSession();
    server.behave(hang);
    try {
      const env = new MockActivityEnvironment();
      const delivered = env.run(() => activities.deliverPush(input(id)));
      await until(async () => requestsFor(id).length === 1);
      env.cancel();
      expect(await delivered).toEqual({ status: 'cancelled' });
      expect(await statusOf(id)).toEqual({ status: 'cancelled', response: null });
    } finally {
      server.behave(answer(200, { response: 'from the agent' }));
    }
  });
});

describe('recordOutcome', () => {
  it('writes once: a second call changes nothing and returns what was recorded', async () => {
    const id = await newSession('main');
    const first = await run(() =>
      activities.recordOutcome({
        sessionId: id,
        kind: 'main',
        deadlineSeconds: 30,
        settlement: { status: 'answered', response: 'one', latencyMs: 5 },
      }),
    );
    expect(first).toEqual({ status: 'answered' });
    const second = await run(() =>
      activities.recordOutcome({
        sessionId: id,
        kind: 'main',
        deadlineSeconds: 30,
        settlement: { status: 'error', error: 'two', latencyMs: 9 },
      }),
    );
    expect(second).toEqual({ status: 'answered' });
    const [row] = await sql(`select status, response, error, latency_ms from sessions where id = ?`, [id]);
    expect(row).toEqual({ status: 'answered', response: 'one', error: null, latency_ms: 5 });
    const [prompt] = await sql<{ answer_count: number }>(
      `select answer_count from prompts where id = (select prompt_id from sessions where id = ?)`,
      [id],
    );
    expect(prompt!.answer_count).toBe(1);
  });

  it("records a pulled result in two statements, its latency counted from the lease read in the outcome's own", async () => {
    const id = await newSession();
    await sql(`update sessions set mode = 'pull' where id = ?`, [id]);
    const [item] = await sql<{ leased_ms: number }>(
      `insert into work_items (session_id, agent_id, state, created_at, leased_at)
       values (?, ?, 'leased', now(), now() - interval '3 seconds')
       returning (extract(epoch from leased_at) * 1000)::float8 as leased_ms`,
      [id, agentId],
    );
    const statements: string[] = [];
    const knex = t.orm.em.getConnection().getKnex();
    const onQuery = (query: { sql: string }) => statements.push(query.sql);
    knex.on('query', onQuery);
    try {
      const result = { response: 'pulled', error: null, agentLatencyMs: 7, resultHash: 'h' };
      const settlement = { status: 'pulled' as const, result: { ...result, receivedAt: item!.leased_ms + 1234 } };
      expect(
        await run(() => activities.recordOutcome({ sessionId: id, kind: 'sandbox', deadlineSeconds: 30, settlement })),
      ).toEqual({ status: 'answered' });
    } finally {
      knex.off('query', onQuery);
    }
    // The outcome (with the lease read inside it) and the item's settling: no separate read of the lease.
    expect(statements.filter((sql) => !/^(begin|commit|rollback)/i.test(sql.trim()))).toHaveLength(2);
    const [row] = await sql(`select status, latency_ms, agent_latency_ms from sessions where id = ?`, [id]);
    expect(row).toEqual({ status: 'answered', latency_ms: 1234, agent_latency_ms: 7 });
    expect(await sql(`select state from work_items where session_id = ?`, [id])).toEqual([{ state: 'completed' }]);
  });

  it('keeps the last never-sent cause when the deadline passes', async () => {
    const id = await newSession('gym');
    await sql(`update sessions set error = 'connection refused by 127.0.0.1:9' where id = ?`, [id]);
    expect(
      await run(() =>
        activities.recordOutcome({
          sessionId: id,
          kind: 'gym',
          deadlineSeconds: 30,
          settlement: { status: 'deadline' },
        }),
      ),
    ).toEqual({ status: 'error' });
    const [row] = await sql<{ error: string; latency_ms: number }>(
      `select error, latency_ms from sessions where id = ?`,
      [id],
    );
    expect(row).toEqual({
      error: 'deadline exceeded (30 s); last attempt: connection refused by 127.0.0.1:9',
      latency_ms: 30_000,
    });
  });
});

describe('recordCodingOutcome', () => {
  it("writes, counts and logs a coding session's end once, however often it is called", async () => {
    await sql(
      `insert into coding_tasks (id, title, language, statement, manifest, files, hidden_tests, suite, added_at)
       values ('python/record-once', 'Record once', 'python', 'Add two numbers.', '{}', '{}', '{}', 'custom', now())
       on conflict (id) do nothing`,
    );
    const id = await newSession('sandbox');
    await sql(`update sessions set category = 'swe', status = 'running' where id = ?`, [id]);
    await sql(
      `insert into coding_sessions (session_id, task_id, token_nonce, max_steps, expires_at)
       values (?, 'python/record-once', 'nonce', 10, now() + interval '1 hour')`,
      [id],
    );
    const lines: Array<{ message: string; meta?: Record<string, unknown> }> = [];
    const logger = {
      log: (_level: string, message: string, meta?: Record<string, unknown>) => lines.push({ message, meta }),
      trace: () => undefined,
      debug: () => undefined,
      info: (message: string, meta?: Record<string, unknown>) => lines.push({ message, meta }),
      warn: () => undefined,
      error: () => undefined,
    };
    const passedBefore = (await codingSessionsTotal.get()).values.find((v) => v.labels.status === 'passed')?.value ?? 0;
    const end = () =>
      new MockActivityEnvironment({}, { logger }).run(() =>
        activities.recordCodingOutcome({ sessionId: id, status: 'passed', testsPassed: 2, testsTotal: 2 }),
      );
    expect(await end()).toEqual({ status: 'passed' });
    expect(await end()).toEqual({ status: 'passed' });
    const recorded = lines.filter((l) => l.message === 'delivery recorded' || l.message === 'delivery failed');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      message: 'delivery recorded',
      meta: { sessionId: id, kind: 'sandbox', status: 'passed' },
    });
    const passedAfter = (await codingSessionsTotal.get()).values.find((v) => v.labels.status === 'passed')?.value ?? 0;
    expect(passedAfter - passedBefore).toBe(1);
  });
});
