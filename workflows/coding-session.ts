/**
 * codingSession (`delivery-<session id>`): one coding task for one agent in a sandboxed workspace.
 * An activity on the shared queue prepares the workspace on whichever worker takes it and answers
 * with that worker's own task queue; every later step runs there, so the session stays on the
 * machine that holds its files. Steps arrive as updates, one at a time. Submit, cancel or the
 * deadline ends the session: no step starts after that, everything of the session is stopped, the
 * hidden tests run in a clean room on the same worker (its end queue, never behind steps), the score
 * is recorded and the workspace removed. A worker that dies takes the session to `error` ("workspace
 * lost"), recorded once.
 */
import {
  ActivityFailure,
  type ActivityInterfaceFor,
  type UntypedActivities,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  TimeoutFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { TimeoutType, type Duration } from '@temporalio/common';
import type { DeliveryStatus } from '../domain/deliveries';
import type { createActivities } from '../activities';
import type { createCodingSessionEndActivities, createWorkspaceActivities } from '../activities/workspaces';
import {
  ArenaOutcome,
  cancelCodingStep,
  cancelDelivery,
  codingRefusals,
  DELIVERY_REFUSED,
  runCodingStep,
  sessionEndQueueOf,
  SANDBOX_BUSY,
  STEP_CAP_REACHED,
  submitCoding,
  type CodingRun,
  type CodingScore,
  type CodingSessionInput,
  type CodingStepDone,
  type CodingStepRef,
  type DeliveryOutcome,
} from './contracts';

type Activities = ReturnType<typeof createActivities>;
type WorkspaceActivities = ReturnType<typeof createWorkspaceActivities>;
type CodingSessionEndActivities = ReturnType<typeof createCodingSessionEndActivities>;

/**
 * Sessions begun before the clean room ended on the step queue: the hidden tests ran in the workspace
 * itself (`scoreWorkspace`), which was then removed there. Kept so their histories replay; no worker
 * serves them any more.
 */
type WorkspaceActivitiesBeforeCleanRoom = {
  scoreWorkspace(input: { sessionId: number; taskId: string }): Promise<{ passed: number; total: number }>;
  removeWorkspace(input: { sessionId: number }): Promise<void>;
};

/**
 * Since this patch a session's end is clean: no step starts once it ends (deadline included), it is
 * stopped whole before its score, the hidden tests run in a clean room with the arena's harness, on
 * the worker's end queue; a cancel is scored too; a step its worker did not pick up in time is
 * refused as busy when the worker still answers, instead of ending the session as lost.
 */
export const CLEAN_ROOM_PATCH = 'coding-clean-room';
/** A2A agents take coding sessions: their prompt goes as an A2A message (docs/decisions.md, "A2A as a third connection mode"). */
export const A2A_CODING_PATCH = 'coding-a2a';
/** A step's client may cancel it (`cancelCodingStep`): sessions begun before never hear of it. */
export const CANCEL_STEP_PATCH = 'coding-step-cancel';

const writeOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
} as const;
const shared = proxyActivities<Activities>(writeOptions);
const local = proxyLocalActivities<Activities>(writeOptions);

/**
 * Steps on the workspace's worker. Not retried: a step's own failures come back as its result, so
 * a thrown failure means the worker could not run it (gone, or its isolation broke), and running
 * it again elsewhere would find no workspace. A worker that is gone never picks the task up
 * (schedule-to-start) or stops heartbeating.
 */
function onWorkspace<A extends UntypedActivities>(
  taskQueue: string,
  startToCloseTimeout: Duration,
  scheduleToStartTimeout: Duration = DEFAULT_PICKUP_SECONDS * 1000,
): ActivityInterfaceFor<A> {
  return proxyActivities<A>({
    taskQueue,
    scheduleToStartTimeout,
    startToCloseTimeout,
    heartbeatTimeout: '15 seconds',
    retry: { maximumAttempts: 1 },
  });
}

/**
 * How long a task waits for the worker holding the workspace to take it, unless that worker says
 * otherwise when it prepares the workspace (ARENA_WORKSPACE_PICKUP_SECONDS).
 */
const DEFAULT_PICKUP_SECONDS = 20;

/** The activities that end sessions, on the end queue beside a worker's step queue. */
function onSessionEnd(
  stepQueue: string,
  startToCloseTimeout: Duration,
  pickupMs: number,
): ActivityInterfaceFor<CodingSessionEndActivities> {
  return onWorkspace<CodingSessionEndActivities>(sessionEndQueueOf(stepQueue), startToCloseTimeout, pickupMs);
}

/** How long a push webhook that is still open at submit may take to answer the session's summary. */
const PUSH_SUMMARY_GRACE = '30 seconds';

function refuse(reason: string, type = DELIVERY_REFUSED): ApplicationFailure {
  return ApplicationFailure.nonRetryable(reason, type);
}

/** The worker holding the workspace is gone: what `error` the session records. */
function isWorkspaceLost(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof TimeoutFailure;
}

/** The activity was never started: no worker took it from its queue within its schedule-to-start timeout. */
function notPickedUp(err: unknown): boolean {
  return (
    err instanceof ActivityFailure &&
    err.cause instanceof TimeoutFailure &&
    err.cause.timeoutType === TimeoutType.SCHEDULE_TO_START
  );
}

/** Whether the worker holding the workspace still answers, on its end queue (which steps never fill). */
function stillThere(stepQueue: string, pickupMs: number): Promise<boolean> {
  return onWorkspace<CodingSessionEndActivities>(sessionEndQueueOf(stepQueue), '10 seconds', Math.min(10_000, pickupMs))
    .stillThere()
    .then(
      () => true,
      () => false,
    );
}

export async function codingSession(input: CodingSessionInput): Promise<DeliveryOutcome> {
  const cleanRoom = patched(CLEAN_ROOM_PATCH);
  const deadlineAt = workflowInfo().startTime.getTime() + input.deadlineSeconds * 1000;
  const deadlineMs = Math.max(1, input.deadlineSeconds * 1000 - (Date.now() - workflowInfo().startTime.getTime()));
  /** The session is ending (submit, cancel, the deadline, a failure): no step starts from now on. */
  let closing = false;
  let steps = 0;
  /** Steps accepted that never ran (their worker was busy): they do not count against the step cap. */
  let notRun = 0;
  let stepsRunning = 0;
  let submitted = false;
  let cancelRequested = false;
  /** Why the session ended early: the delivery failed, or the workspace was lost. */
  let failure: { error: string; notAgentsFault: boolean } | undefined;
  let ended: DeliveryStatus | undefined;
  let score: CodingScore | undefined;
  /** The activities on the worker that holds the workspace, once it is prepared. */
  let workspace: ActivityInterfaceFor<WorkspaceActivities> | undefined;
  /** The task queue of the worker that holds the workspace, once it is prepared. */
  let taskQueue: string | undefined;
  /** How long a task on that worker's queues may wait to be taken before the worker counts as gone. */
  let pickupMs = DEFAULT_PICKUP_SECONDS * 1000;
  /** Whether the session's deadline has passed (by the workflow's clock, which replays alike). */
  const pastDeadline = () => cleanRoom && (closing || Date.now() >= deadlineAt);

  const stillOpen = () => {
    if (ended) throw refuse(codingRefusals.ended(ended));
    if (failure) throw refuse(failure.error);
    if (submitted) throw refuse(codingRefusals.submitted);
    if (cancelRequested) throw refuse(codingRefusals.ended('cancelled'));
  };
  /** Steps whose client gave up on them before they ran: each is refused at its turn. */
  const cancelledSteps = new Set<number>();
  /** The step whose activity runs now. */
  let runningStep: number | undefined;
  if (patched(CANCEL_STEP_PATCH)) {
    setHandler(cancelCodingStep, ({ stepId }: CodingStepRef) => {
      if (runningStep !== stepId) {
        cancelledSteps.add(stepId);
        return;
      }
      // Stopped on its worker, through the end queue (steps never fill it); a worker gone or too old
      // to know the activity leaves the command to its own timeout.
      if (taskQueue)
        void onSessionEnd(taskQueue, '10 seconds', pickupMs)
          .cancelStep({ sessionId: input.sessionId, stepId })
          .catch(() => undefined);
    });
  }
  // One step at a time, in the order they came: the file steps rely on no command running beside them.
  let queue: Promise<unknown> = Promise.resolve();
  setHandler(
    runCodingStep,
    ({ stepId }: CodingStepRef): Promise<CodingStepDone> => {
      const n = ++steps;
      stepsRunning++;
      const turn = queue.then(async () => {
        try {
          // A step can only come with the prompt's token, so after the workspace is ready; wait anyway.
          await condition(() => workspace !== undefined || failure !== undefined);
          if (failure || !workspace) throw refuse(failure?.error ?? codingRefusals.lost);
          // A step still queued when the session ends never runs.
          if (cleanRoom && closing) throw refuse(submitted ? codingRefusals.submitted : codingRefusals.deadline);
          // Nor one its client gave up on while it waited: it takes none of the session's steps.
          if (cancelledSteps.delete(stepId)) {
            notRun++;
            throw refuse(codingRefusals.cancelled);
          }
          runningStep = stepId;
          try {
            await workspace.runStep(
              cleanRoom
                ? { sessionId: input.sessionId, stepId, n, deadlineAt }
                : { sessionId: input.sessionId, stepId, n },
            );
          } finally {
            runningStep = undefined;
          }
          return { n };
        } catch (err) {
          if (err instanceof ApplicationFailure) throw err;
          // Not picked up in time: a worker whose slots are all taken, or one that is gone. Only a
          // worker that does not answer on its end queue either is gone; the busy one refuses the step.
          if (cleanRoom && notPickedUp(err) && taskQueue && (await stillThere(taskQueue, pickupMs))) {
            notRun++;
            throw refuse(codingRefusals.busy, SANDBOX_BUSY);
          }
          const error = isWorkspaceLost(err) ? codingRefusals.lost : codingRefusals.broken;
          failure ??= { error, notAgentsFault: true };
          throw refuse(error);
        } finally {
          stepsRunning--;
        }
      });
      queue = turn.catch(() => undefined);
      return turn;
    },
    {
      validator: (_step: CodingStepRef) => {
        stillOpen();
        if (pastDeadline()) throw refuse(codingRefusals.deadline);
        if (steps - notRun >= input.maxSteps) throw refuse(codingRefusals.stepCap(input.maxSteps), STEP_CAP_REACHED);
      },
    },
  );
  setHandler(
    submitCoding,
    async () => {
      submitted = true;
      await condition(() => score !== undefined || ended !== undefined);
      return score ?? { status: ended!, testsPassed: 0, testsTotal: 0 };
    },
    { validator: stillOpen },
  );
  setHandler(
    cancelDelivery,
    async () => {
      cancelRequested = true;
      await condition(() => ended !== undefined);
      return { status: ended! };
    },
    { validator: stillOpen },
  );

  const prepared = await shared.prepareCodingWorkspace({ sessionId: input.sessionId, taskId: input.taskId });
  // `let`, assigned once: the step handler above reads it as the workspace's queue.
  taskQueue = prepared.ok ? prepared.taskQueue : undefined;
  // Workers before the setting answered no pickup: theirs is the default.
  if (prepared.ok && prepared.pickupSeconds) pickupMs = prepared.pickupSeconds * 1000;
  if (!prepared.ok) failure = { error: prepared.reason, notAgentsFault: true };
  // A step's own limit is at most 120 s; the hidden tests get the task's limit, at most 10 minutes.
  if (taskQueue) workspace = onWorkspace<WorkspaceActivities>(taskQueue, '3 minutes', pickupMs);

  // The prompt goes out: pushed (the webhook may answer at once or hold the request; either way the
  // session lasts until submit, cancel or the deadline), or queued for the runner's work/next.
  const delivery = new CancellationScope();
  /** A push webhook may answer (the agent's summary) when its command ends, after submit. */
  let pushOpen = false;
  let pushedSummary: string | undefined;
  if (failure || cancelRequested) {
    // Nothing to deliver: the workspace could not be made, or the owner cancelled first.
  } else if (input.mode === 'push' || (input.mode === 'a2a' && patched(A2A_CODING_PATCH))) {
    const { pushPrompt, sendA2aPrompt } = proxyActivities<Activities>({
      scheduleToCloseTimeout: deadlineMs,
      heartbeatTimeout: '10 seconds',
      retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
    });
    const deadlineAt = Date.now() + deadlineMs;
    // An A2A agent gets the prompt as a message; its task runs while it works the session, and what
    // it completes with is its summary, as a push webhook's late answer is.
    const send =
      input.mode === 'a2a'
        ? () => sendA2aPrompt({ sessionId: input.sessionId, deadlineAt, answerWithinMs: deadlineMs })
        : () => pushPrompt({ sessionId: input.sessionId, deadlineAt });
    pushOpen = true;
    delivery.run(send).then(
      (settlement) => {
        pushOpen = false;
        if (settlement.status === 'answered') pushedSummary = settlement.response;
        // A failed push ends the session, unless the agent is already at work (it got the prompt).
        else if (settlement.status === 'error' && steps === 0)
          failure ??= { error: settlement.error, notAgentsFault: settlement.notAgentsFault ?? false };
      },
      (err: unknown) => {
        pushOpen = false;
        if (!isCancellation(err) && steps === 0)
          failure ??= { error: 'the prompt could not be delivered', notAgentsFault: true };
      },
    );
  } else {
    await local.queueWork({ sessionId: input.sessionId });
  }

  const early = await condition(() => submitted || cancelRequested || failure !== undefined, deadlineMs);
  closing = true;
  if (!submitted) delivery.cancel();
  const report = cleanRoom ? await endCleanly() : await endInWorkspace();

  /** Runs the hidden tests through `score`; a worker lost or failing meanwhile is the session's failure. */
  async function scored(score: () => Promise<CodingRun>): Promise<CodingRun | undefined> {
    try {
      return await score();
    } catch (err) {
      failure = { error: isWorkspaceLost(err) ? codingRefusals.lost : codingRefusals.broken, notAgentsFault: true };
      return undefined;
    }
  }

  /**
   * Best effort, and before the end is recorded, so a session that has ended holds no files. A
   * workspace left behind by a worker that died is swept when a worker starts.
   */
  async function removed(remove: () => Promise<void>): Promise<void> {
    if (taskQueue && failure?.error !== codingRefusals.lost)
      await CancellationScope.nonCancellable(() => remove().catch(() => undefined));
  }

  /** Since CLEAN_ROOM_PATCH: stop everything of the session, score it in a clean room, remove its workspace. */
  async function endCleanly(): Promise<CodingRun | undefined> {
    if (taskQueue && failure?.error !== codingRefusals.lost) {
      try {
        // A step in flight is killed here; steps still queued are refused as their turn comes.
        await onSessionEnd(taskQueue, '1 minute', pickupMs).stopSession({ sessionId: input.sessionId });
      } catch (err) {
        failure ??= { error: isWorkspaceLost(err) ? codingRefusals.lost : codingRefusals.broken, notAgentsFault: true };
      }
    }
    await condition(() => stepsRunning === 0);
    const queue = taskQueue;
    const run =
      !failure && queue
        ? await scored(() =>
            onSessionEnd(queue, '11 minutes', pickupMs).scoreCleanRoom({
              sessionId: input.sessionId,
              taskId: input.taskId,
            }),
          )
        : undefined;
    if (queue)
      await removed(() => onSessionEnd(queue, '1 minute', pickupMs).removeWorkspace({ sessionId: input.sessionId }));
    return run;
  }

  /** Before CLEAN_ROOM_PATCH: the hidden tests ran in the workspace, unless the session was cancelled. */
  async function endInWorkspace(): Promise<CodingRun | undefined> {
    // Steps already running finish (each is bounded by its own timeout) before the tests look at the files.
    await condition(() => stepsRunning === 0);
    const queue = taskQueue;
    const onOldQueue = (timeout: Duration) =>
      onWorkspace<WorkspaceActivitiesBeforeCleanRoom>(queue!, timeout, pickupMs);
    const run =
      !failure && !cancelRequested && queue
        ? await scored(() =>
            onOldQueue('11 minutes').scoreWorkspace({ sessionId: input.sessionId, taskId: input.taskId }),
          )
        : undefined;
    if (queue) await removed(() => onOldQueue('1 minute').removeWorkspace({ sessionId: input.sessionId }));
    return run;
  }

  const summaryBeforeEnd = pushedSummary;
  if (summaryBeforeEnd !== undefined)
    await local.recordCodingSummary({ sessionId: input.sessionId, summary: summaryBeforeEnd });

  let outcome: DeliveryOutcome;
  if (report) {
    const status: DeliveryStatus = report.tampered
      ? 'failed'
      : cancelRequested
        ? 'cancelled'
        : !early
          ? 'timeout'
          : report.passed === report.total && report.total > 0
            ? 'passed'
            : 'failed';
    outcome = await local.recordCodingOutcome({
      sessionId: input.sessionId,
      status,
      testsPassed: report.passed,
      testsTotal: report.total,
      ...(report.tampered ? { tampered: report.tampered } : {}),
      ...(report.unread ? { scoreNote: report.unread } : {}),
      ...(report.leftOut ? { leftOut: report.leftOut } : {}),
      ...(report.uncompared ? { uncompared: report.uncompared } : {}),
    });
    score = {
      status: outcome.status,
      testsPassed: report.passed,
      testsTotal: report.total,
      ...(report.tampered ? { tampered: report.tampered } : {}),
    };
  } else if (cancelRequested && !failure) {
    outcome = await local.recordCodingOutcome({ sessionId: input.sessionId, status: 'cancelled' });
  } else {
    outcome = await local.recordCodingOutcome({
      sessionId: input.sessionId,
      status: 'error',
      ...(failure ?? { error: codingRefusals.lost, notAgentsFault: true }),
    });
  }
  ended = outcome.status;
  upsertSearchAttributes([{ key: ArenaOutcome, value: outcome.status }]);
  // After submit the agent's webhook usually answers its summary within moments; it is kept if it does.
  if (pushOpen) await condition(() => !pushOpen, PUSH_SUMMARY_GRACE);
  delivery.cancel();
  if (pushedSummary !== undefined && summaryBeforeEnd === undefined)
    await local.recordCodingSummary({ sessionId: input.sessionId, summary: pushedSummary });
  await condition(allHandlersFinished);
  return outcome;
}
