/**
 * deliverPrompt: one durable workflow per prompt delivery (`delivery-<session id>`).
 * Push (and A2A, whose activity sends a message and follows its task instead of a POST): one activity makes the signed POST, waits for the answer until the deadline, counted
 * from the moment the POST was sent, and records the outcome. Pull: a local activity queues the
 * work item, then the workflow waits for the runner's result (the submitResult update) until the
 * deadline, counted from the moment the item was handed out (an item nobody takes expires at the
 * deadline from the start), and a local activity records the outcome. The outcome is written
 * once: a second write finds it and changes nothing.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  deprecatePatch,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { DeliveryStatus } from '../domain/deliveries';
import {
  ArenaOutcome,
  cancelDelivery,
  DELIVERY_REFUSED,
  refusals,
  submitResult,
  type DeliveryInput,
  type DeliveryOutcome,
  type PullResult,
  type PushOutcome,
  type Settlement,
} from './contracts';

type Activities = ReturnType<typeof createActivities>;

/** A validator's refusal: the API answers it as a conflict, with this reason. */
function refuse(reason: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(reason, DELIVERY_REFUSED);
}

const writeOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
} as const;
/**
 * Queueing pull work and recording the outcome are single idempotent database writes, so they run
 * as local activities: in the workflow task that asks for them, with no round trip through a task
 * queue.
 */
const local = proxyLocalActivities<Activities>(writeOptions);

/**
 * Retired patches (docs/decisions.md, "Workflow versions"): every delivery begun before them has
 * ended, so their old branches are gone; the markers stay until the executions begun while they
 * were `patched()` have ended too. Queueing and recording are local activities
 * (`local-database-writes`), the deadline counts from the moment the prompt left
 * (`deadline-from-prompt-left`), and a push delivery is one activity that sends, waits and records
 * (`push-activity-records-outcome`).
 */
const LOCAL_WRITES_PATCH = 'local-database-writes';
const DEADLINE_FROM_PROMPT_LEFT_PATCH = 'deadline-from-prompt-left';
const PUSH_RECORDS_OUTCOME_PATCH = 'push-activity-records-outcome';
/** A2A agents: their deliveries run `deliverA2a` (docs/decisions.md, "A2A as a third connection mode"). */
const A2A_MODE_PATCH = 'a2a-mode';
/** How long past the agent's deadline the push activity may still run (every attempt included) before it is given up on. */
const PUSH_BACKSTOP_GRACE_MS = 10_000;

/**
 * What is left of the deadline when the workflow first runs. It counts from the start of the workflow,
 * not from when a worker got to it: under load the first workflow task may wait in the queue.
 */
function remainingDeadlineMs(input: DeliveryInput): number {
  return Math.max(1, input.deadlineSeconds * 1000 - (Date.now() - workflowInfo().startTime.getTime()));
}

export async function deliverPrompt(input: DeliveryInput): Promise<DeliveryOutcome> {
  const deadlineMs = remainingDeadlineMs(input);
  let cancelRequested = false;
  let pulled: PullResult | undefined;
  /** Set once the delivery is settled: why a late result or cancel is refused. */
  let closedReason: string | undefined;
  let recorded: DeliveryStatus | undefined;
  const whenRecorded = async (): Promise<DeliveryOutcome> => {
    await condition(() => recorded !== undefined);
    return { status: recorded! };
  };

  setHandler(
    cancelDelivery,
    () => {
      cancelRequested = true;
      return whenRecorded();
    },
    {
      validator: () => {
        if (closedReason || pulled) throw refuse(refusals.ended);
      },
    },
  );
  setHandler(
    submitResult,
    (result) => {
      pulled ??= result;
      return whenRecorded();
    },
    {
      validator: (result) => {
        if (input.mode !== 'pull') throw refuse(refusals.notPullMode);
        if (pulled && pulled.resultHash !== result.resultHash) throw refuse(refusals.differentResult);
        if (!pulled && closedReason) throw refuse(closedReason);
      },
    },
  );

  if (input.mode === 'push' || input.mode === 'a2a') {
    deprecatePatch(PUSH_RECORDS_OUTCOME_PATCH);
    // A2A is a third way of sending, versioned: one activity sends the message and follows its task,
    // as one activity makes a push POST and waits.
    const send = input.mode === 'a2a' && patched(A2A_MODE_PATCH) ? 'deliverA2a' : 'deliverPush';
    return finish(await pushAndRecord(input, deadlineMs, () => cancelRequested, send));
  }

  // Pull: the item is queued, and the workflow waits for the runner's result.
  deprecatePatch(LOCAL_WRITES_PATCH);
  await local.queueWork({ sessionId: input.sessionId });
  const resolved = () => pulled !== undefined || cancelRequested;
  let settled = await condition(resolved, deadlineMs);
  if (!settled) {
    deprecatePatch(DEADLINE_FROM_PROMPT_LEFT_PATCH);
    // The deadline from the start has passed. A runner that took the item since has its whole
    // deadline from then; an item nobody took is expired now, so no runner takes it any more.
    for (;;) {
      const { leaseLeftMs } = await local.closeUnleasedWork({
        sessionId: input.sessionId,
        deadlineSeconds: input.deadlineSeconds,
      });
      if (leaseLeftMs <= 0) break;
      settled = await condition(resolved, leaseLeftMs);
      if (settled) break;
    }
  }
  const settlement: Settlement = pulled
    ? { status: 'pulled', result: pulled }
    : settled
      ? { status: 'cancelled' }
      : { status: 'deadline' };
  closedReason =
    settlement.status === 'cancelled'
      ? refusals.cancelled
      : settlement.status === 'deadline'
        ? refusals.expired(input.deadlineSeconds)
        : refusals.answered;

  const outcome = await local.recordOutcome({
    sessionId: input.sessionId,
    kind: input.kind,
    deadlineSeconds: input.deadlineSeconds,
    settlement,
  });
  return finish(outcome);

  async function finish(outcome: DeliveryOutcome): Promise<DeliveryOutcome> {
    // Pull deliveries said why above; a push delivery only refuses a late cancel, as ended.
    closedReason ??= refusals.ended;
    recorded = outcome.status;
    upsertSearchAttributes([{ key: ArenaOutcome, value: outcome.status }]);
    // Update handlers answer with the recorded status; let them reply before the workflow closes.
    await condition(allHandlersFinished);
    return outcome;
  }
}

/**
 * A push or A2A delivery in one activity that sends, waits and records (`deliverPush`, `deliverA2a`): no workflow timer
 * (the activity's schedule-to-close bounds it) and no second write. Only the rare paths write from
 * here: an owner's cancel (recorded before the request is aborted), attempts that ran out, and an
 * answer the activity could not write.
 */
async function pushAndRecord(
  input: DeliveryInput,
  deadlineMs: number,
  cancelled: () => boolean,
  send: 'deliverPush' | 'deliverA2a',
): Promise<DeliveryOutcome> {
  const answerWithinMs = input.deadlineSeconds * 1000;
  const { [send]: deliver } = proxyActivities<Activities>(
    pushActivityOptions(deadlineMs + answerWithinMs + PUSH_BACKSTOP_GRACE_MS),
  );
  let done: PushOutcome | undefined;
  let failed = false;
  const scope = new CancellationScope();
  scope
    .run(() =>
      deliver({
        sessionId: input.sessionId,
        kind: input.kind,
        deadlineSeconds: input.deadlineSeconds,
        deadlineAt: Date.now() + deadlineMs,
        answerWithinMs,
      }),
    )
    .then(
      (outcome) => {
        done = outcome;
      },
      (err: unknown) => {
        if (!isCancellation(err)) failed = true;
      },
    );
  await condition(() => done !== undefined || failed || cancelled());
  // The activity could not write what the agent answered (the database was down): it is written
  // here, by a local activity that retries until the database is back.
  if (done && 'unrecorded' in done) return record(done.unrecorded);
  if (done) return done;
  const outcome = await record(failed ? { status: 'deadline' } : { status: 'cancelled' });
  // Only now is the open request aborted: the cancel is recorded first, so the activity's own write finds it.
  scope.cancel();
  return outcome;

  function record(settlement: Settlement): Promise<DeliveryOutcome> {
    return local.recordOutcome({
      sessionId: input.sessionId,
      kind: input.kind,
      deadlineSeconds: input.deadlineSeconds,
      settlement,
    });
  }
}

function pushActivityOptions(boundMs: number) {
  return {
    // The bound covers every attempt. A request that never left is tried again; an attempt lost
    // with its worker (no heartbeat) is retried too, and the retry records it without sending again.
    scheduleToCloseTimeout: boundMs,
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
  } as const;
}
