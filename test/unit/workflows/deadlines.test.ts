/**
 * Deadlines in virtual time: the delivery, coding-session and dispatch workflows against Temporal's
 * time-skipping test server, with their activities stubbed. A five-minute deadline passes in moments,
 * and the tests read the server's clock, so they say when a deadline fell, not only that it did.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { codingSession, deliverPrompt, dispatchArena } from '../../../workflows';
import {
  codingRefusals,
  runCodingStep,
  sessionEndQueueOf,
  submitResult,
  type CodingRun,
  type CodingSessionInput,
  type DispatchBatch,
  type DeliveryInput,
  type PullResult,
  type Settlement,
} from '../../../workflows/contracts';
import { arenaWorkflowBundle, timeSkippingEnvironment } from '../../support/time-skipping';

let env: TestWorkflowEnvironment;
let bundle: Awaited<ReturnType<typeof arenaWorkflowBundle>>;

beforeAll(async () => {
  [env, bundle] = await Promise.all([timeSkippingEnvironment(), arenaWorkflowBundle()]);
}, 180_000);
afterAll(async () => {
  await env?.teardown();
});

/** What the stubs saw, each with the server's (virtual) time in ms since the workflow started. */
interface Seen {
  name: string;
  atMs: number;
  input: unknown;
}

let ids = 0;

type Stubs = Record<string, (input: never) => Promise<unknown>>;

/**
 * Workers with stubbed activities (the workflow's on a queue of its own, `more` on queues named
 * after it) while `body` runs against the environment.
 */
async function withWorker<T>(
  activities: Stubs,
  body: (taskQueue: string) => Promise<T>,
  more: Array<{ taskQueue: string; activities: Stubs }> = [],
): Promise<T> {
  const taskQueue = `virtual-time-${++ids}`;
  const workers = await Promise.all([
    Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities }),
    ...more.map((m) => Worker.create({ connection: env.nativeConnection, ...m })),
  ]);
  const done = body(taskQueue);
  await Promise.all(workers.map((worker) => worker.runUntil(done)));
  return done;
}

/** A coding session on python/leap-year with a deadline of 30 minutes. */
function codingInput(sessionId: number): CodingSessionInput {
  return {
    ...pullDelivery(sessionId, 1_800),
    kind: 'sandbox',
    category: 'swe',
    taskId: 'python/leap-year',
    maxSteps: 50,
  };
}

/** The main queue's stubs of a coding session: the workspace prepared as `prepared` says, each call noted. */
function codingStubs(r: ReturnType<typeof recorder>, prepared: Record<string, unknown>): Stubs {
  return {
    prepareCodingWorkspace: async (i: never) => {
      await r.note('prepareCodingWorkspace', i);
      return prepared;
    },
    queueWork: async (i: never) => void (await r.note('queueWork', i)),
    recordCodingOutcome: async (i: never) => {
      await r.note('recordCodingOutcome', i);
      return { status: (i as { status: string }).status };
    },
  };
}

/** Records each call with its virtual time; `startedMs` is set once the workflow has started. */
function recorder() {
  const seen: Seen[] = [];
  let startedMs = 0;
  return {
    seen,
    started: (ms: number) => (startedMs = ms),
    note: async (name: string, input: unknown) => {
      seen.push({ name, atMs: (await env.currentTimeMs()) - startedMs, input });
    },
    of: (name: string) => seen.filter((s) => s.name === name),
  };
}

/**
 * When each of the workflow's timers fired, in ms from its start, by the server's clock as the
 * history recorded it: the skipped clock jumps straight to a timer, so these are exact.
 */
async function timersFired(handle: WorkflowHandle): Promise<number[]> {
  const { events } = await handle.fetchHistory();
  const startMs = tsToMs(events![0]!.eventTime);
  return events!.filter((e) => e.timerFiredEventAttributes).map((e) => tsToMs(e.eventTime) - startMs);
}

/**
 * Each timer fired at its mark or after it, never before, and within `slackMs` of it: a timer the
 * workflow starts after an activity starts as late as the activity took (real time, not skipped).
 */
function expectFiredAt(fired: number[], marks: number[], slackMs = 2_000): void {
  expect(fired).toHaveLength(marks.length);
  fired.forEach((ms, i) => {
    expect(ms).toBeGreaterThanOrEqual(marks[i]!);
    expect(ms).toBeLessThan(marks[i]! + slackMs);
  });
}

const pullDelivery = (sessionId: number, deadlineSeconds: number): DeliveryInput => ({
  sessionId,
  agentId: 1,
  kind: 'main',
  mode: 'pull',
  category: 'general',
  deadlineSeconds,
});

/** The pull path's three database writes, stubbed; `leaseLeft` answers each look at an item past its deadline. */
function pullActivities(r: ReturnType<typeof recorder>, leaseLeft: () => number) {
  return {
    queueWork: async (input: never) => void (await r.note('queueWork', input)),
    closeUnleasedWork: async (input: never) => {
      await r.note('closeUnleasedWork', input);
      return { leaseLeftMs: leaseLeft() };
    },
    recordOutcome: async (input: never) => {
      await r.note('recordOutcome', input);
      const { settlement } = input as { settlement: Settlement };
      return {
        status:
          settlement.status === 'pulled' ? 'answered' : settlement.status === 'deadline' ? 'timeout' : 'cancelled',
      };
    },
  };
}

const result = (response: string): PullResult => ({
  response,
  error: null,
  agentLatencyMs: null,
  resultHash: `hash-${response}`,
  receivedAt: 0,
});

describe('a pull delivery in virtual time', () => {
  it('expires an item nobody took at its deadline from the start, never before', async () => {
    const r = recorder();
    const outcome = await withWorker(
      pullActivities(r, () => 0),
      async (taskQueue) => {
        const handle = await env.client.workflow.start(deliverPrompt, {
          taskQueue,
          workflowId: `delivery-unclaimed-${ids}`,
          args: [pullDelivery(1, 300)],
        });
        r.started((await handle.describe()).startTime.getTime());
        return { outcome: await handle.result(), fired: await timersFired(handle) };
      },
    );
    expect(outcome.outcome).toEqual({ status: 'timeout' });
    // The deadline's timer fires at the deadline from the start, never before; it is started once
    // the item is queued, so the queue write's own time (real, not skipped) may come on top.
    expectFiredAt(outcome.fired, [300_000]);
    expect(r.of('closeUnleasedWork')).toHaveLength(1);
    expect(r.of('closeUnleasedWork')[0]!.atMs).toBeGreaterThanOrEqual(300_000);
    expect(r.of('recordOutcome').map((s) => s.input)).toEqual([
      { sessionId: 1, kind: 'main', deadlineSeconds: 300, settlement: { status: 'deadline' } },
    ]);
  });

  it('gives a runner that took the item late its whole deadline from the lease, and takes its result then', async () => {
    const r = recorder();
    // Leased at 250 s: at the 300 s deadline the lease has 250 s left.
    const looks = [250_000];
    const outcome = await withWorker(
      pullActivities(r, () => looks.shift() ?? 0),
      async (taskQueue) => {
        const handle = await env.client.workflow.start(deliverPrompt, {
          taskQueue,
          workflowId: `delivery-late-lease-${ids}`,
          args: [pullDelivery(2, 300)],
        });
        r.started((await handle.describe()).startTime.getTime());
        // 500 s after the start: long past the deadline from the start, inside the one from the lease.
        await env.sleep(500_000);
        expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(
          (await handle.describe()).startTime.getTime() + 500_000,
        );
        await handle.executeUpdate(submitResult, { args: [result('late but in time')] });
        return handle.result();
      },
    );
    expect(outcome).toEqual({ status: 'answered' });
    expect(r.of('closeUnleasedWork')).toHaveLength(1);
    expect(r.of('recordOutcome').map((s) => (s.input as { settlement: Settlement }).settlement)).toEqual([
      { status: 'pulled', result: result('late but in time') },
    ]);
  });

  it('expires a leased item at the deadline from its lease when the runner never answers', async () => {
    const r = recorder();
    const looks = [250_000];
    const outcome = await withWorker(
      pullActivities(r, () => looks.shift() ?? 0),
      async (taskQueue) => {
        const handle = await env.client.workflow.start(deliverPrompt, {
          taskQueue,
          workflowId: `delivery-silent-runner-${ids}`,
          args: [pullDelivery(3, 300)],
        });
        r.started((await handle.describe()).startTime.getTime());
        return { outcome: await handle.result(), fired: await timersFired(handle) };
      },
    );
    expect(outcome.outcome).toEqual({ status: 'timeout' });
    // The deadline from the start, then the lease's 250 s left from when the item was looked at.
    expectFiredAt(outcome.fired, [300_000, 550_000]);
    expect(r.of('closeUnleasedWork')).toHaveLength(2);
    expect(r.of('recordOutcome')[0]!.atMs).toBeGreaterThanOrEqual(550_000);
  });
});

describe('a coding session in virtual time', () => {
  it('ends at its deadline, refuses a step once it has passed, and records the score as a timeout', async () => {
    const r = recorder();
    let scoring!: () => void;
    const scoreHeld = new Promise<void>((resolve) => (scoring = resolve));
    let reachedScoring!: () => void;
    const atScoring = new Promise<void>((resolve) => (reachedScoring = resolve));
    const input = codingInput(4);
    const outcome = await withWorker(
      codingStubs(r, { ok: true, taskQueue: 'workspace-of-4' }),
      async (taskQueue) => {
        const handle = await env.client.workflow.start(codingSession, {
          taskQueue,
          workflowId: `coding-deadline-${ids}`,
          args: [input],
        });
        r.started((await handle.describe()).startTime.getTime());
        const waited = handle.result();
        // The hidden tests are running: the deadline has passed, and no step may start.
        await atScoring;
        const late = await handle.executeUpdate(runCodingStep, { args: [{ stepId: 1 }] }).then(
          () => 'ran',
          (err: unknown) => (err instanceof WorkflowUpdateFailedError ? err.cause?.message : String(err)),
        );
        expect(late).toBe(codingRefusals.deadline);
        scoring();
        return { outcome: await waited, fired: await timersFired(handle) };
      },
      [
        {
          taskQueue: sessionEndQueueOf('workspace-of-4'),
          activities: {
            stopSession: async (i: never) => void (await r.note('stopSession', i)),
            scoreCleanRoom: async (i: never): Promise<CodingRun> => {
              await r.note('scoreCleanRoom', i);
              reachedScoring();
              await scoreHeld;
              return { passed: 4, total: 8 };
            },
            removeWorkspace: async (i: never) => void (await r.note('removeWorkspace', i)),
            stillThere: async () => undefined,
          },
        },
      ],
    );
    expect(outcome.outcome).toEqual({ status: 'timeout' });
    // The session's deadline timer starts once the workspace is prepared and the work queued.
    expectFiredAt(outcome.fired, [1_800_000]);
    expect(r.of('stopSession')[0]!.atMs).toBeGreaterThanOrEqual(1_800_000);
    expect(r.of('recordCodingOutcome').map((s) => s.input)).toEqual([
      { sessionId: 4, status: 'timeout', testsPassed: 4, testsTotal: 8 },
    ]);
    expect(r.seen.map((s) => s.name)).toEqual([
      'prepareCodingWorkspace',
      'queueWork',
      'stopSession',
      'scoreCleanRoom',
      'removeWorkspace',
      'recordCodingOutcome',
    ]);
  });

  it('counts the workspace lost after the pickup its worker gave, when nothing takes a step from its queue', async () => {
    const r = recorder();
    const input = codingInput(5);
    // No worker serves the workspace's queues: the worker that prepared it is gone.
    const outcome = await withWorker(
      codingStubs(r, { ok: true, taskQueue: 'workspace-of-5', pickupSeconds: 1 }),
      async (taskQueue) => {
        const handle = await env.client.workflow.start(codingSession, {
          taskQueue,
          workflowId: `coding-lost-${ids}`,
          args: [input],
        });
        r.started((await handle.describe()).startTime.getTime());
        const step = handle.executeUpdate(runCodingStep, { args: [{ stepId: 1 }] }).then(
          () => 'ran',
          (err: unknown) => (err instanceof WorkflowUpdateFailedError ? err.cause?.message : String(err)),
        );
        const ended = await handle.result();
        return { ended, step: await step };
      },
    );
    expect(outcome).toEqual({ ended: { status: 'error' }, step: codingRefusals.lost });
    // A second for the step to be taken, one more for the worker to answer on its end queue (at
    // most ten), where the defaults wait twenty and ten. (Tasks waiting on a queue hold the
    // time-skipping server's clock: these seconds pass in real time.)
    const [recorded] = r.of('recordCodingOutcome');
    expect(recorded!.input).toMatchObject({ sessionId: 5, status: 'error' });
    expect(recorded!.atMs).toBeGreaterThanOrEqual(2_000);
    expect(recorded!.atMs).toBeLessThan(20_000);
  });
});

/**
 * A dispatch batch whose attempt is lost (its worker killed after the batch's rows were written,
 * or its completion lost while Temporal was down): the rows have no workflow until the attempt is
 * given up on and retried. Against the time-skipping server with stubbed activities, the attempt
 * that never answers stands for the dead worker; the retry must come within the heartbeat timeout,
 * not the whole start-to-close minute, so a main prompt's row is not left a minute without the
 * workflow that delivers it.
 */
describe('a dispatch batch whose attempt is lost', () => {
  it('retries a dispatch batch whose attempt was lost within seconds, not the minute of its start-to-close timeout', async () => {
    const taskQueue = 'dispatch-lost-attempt';
    const attempts: number[] = [];
    let dispatched!: () => void;
    const dispatchEnded = new Promise<void>((resolve) => (dispatched = resolve));
    let startMs = 0;
    let lost!: () => void;
    const attemptLost = new Promise<void>((resolve) => (lost = resolve));
    const activities = {
      beginDispatchStep: async () => {
        startMs = await env.currentTimeMs();
        return { dueAsOf: '2026-01-01T00:00:00Z', startedMs: 0, afterSessionId: 0, childrenPerRun: 100 };
      },
      dispatchMainPromptBatch: async (): Promise<DispatchBatch> => {
        attempts.push((await env.currentTimeMs()) - startMs);
        if (Context.current().info.attempt === 1) {
          // The dead worker: no answer, no heartbeat. Released when Temporal gives the attempt up.
          const givenUp = new Promise((resolve) =>
            Context.current().cancellationSignal.addEventListener('abort', resolve),
          );
          lost();
          await givenUp;
          throw new Error('lost with its worker');
        }
        return {
          deliveries: [
            { sessionId: 1, agentId: 1, kind: 'main', mode: 'push', category: 'general', deadlineSeconds: 20 },
          ],
          more: false,
        };
      },
      // Answered only once the dispatch has ended, as an abandoned child may be.
      deliverPush: async () => {
        await dispatchEnded;
        return { status: 'answered' };
      },
      endDispatchStep: async () => ({ backlog: 0 }),
    };
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities,
      // The lost attempt is cancelled at shutdown, if the old code never gave it up.
      shutdownGraceTime: '1 second',
    });
    // Without a heartbeat timeout the retry waits for the start-to-close minute (in real time: an
    // activity in flight holds the clock); give up well before it.
    const giveUp = new AbortController();
    const timer = setTimeout(() => giveUp.abort(), 40_000);
    // The delivery is a child the dispatch abandons, still running when the dispatch ends: the
    // worker runs until its result too.
    const run = env.client.connection.withAbortSignal(giveUp.signal, async () => {
      const served = await env.client.workflow.execute(dispatchArena, {
        workflowId: 'dispatch-lost-attempt',
        taskQueue,
        args: [],
      });
      dispatched();
      return { served, delivered: await env.client.workflow.getHandle('delivery-1').result() };
    });
    // An activity in flight holds the time-skipping clock: the test moves it past the heartbeat
    // timeout (10 s) itself, so the retry comes in virtual time.
    void attemptLost.then(() => env.sleep(11_000));
    const { served, delivered } = await worker
      .runUntil(run)
      .catch((err: Error) => {
        throw new Error(`no retry within 40 s (attempts at ${attempts.join(', ')} ms): ${err.message}`);
      })
      .finally(() => clearTimeout(timer));
    expect(served).toBe(1);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]! - attempts[0]!).toBeLessThan(20_000);
    expect(delivered).toEqual({ status: 'answered' });
  }, 120_000);
});
