/** Activities of the main arena's dispatch: which agents are due, and one new pool prompt for each, a batch at a time. */
import { Context } from '@temporalio/activity';
import { dueAgentsSummary } from '../infra/db/repositories/agent.repository';
import {
  insertMainDeliveryBatch,
  lastDeliveryId,
  mainDeliveriesOfDispatch,
} from '../infra/db/repositories/delivery.repository';
import {
  dispatchAgentsServedTotal,
  dispatchBacklogAgents,
  dispatchDueAgents,
  dispatchLongestWait,
  dispatchServedAgents,
  dispatchStepDuration,
} from '../infra/metrics';
import { deliveryInputOf, type DeliveryInput, type DispatchBatch, type DispatchCursor } from '../workflows/contracts';
import type { ActivityDeps } from './deps';
import { HEARTBEAT_EVERY_MS } from './send-timing';

export function arenaActivities({ orm, arena }: ActivityDeps) {
  const rules = { requireGym: arena.requireGym, minGapSeconds: arena.minGapSeconds };

  /** Sessions keyed by `keyPrefix` if an earlier attempt made them, else a new batch; one transaction either way. */
  const batchOnce = (keyPrefix: string, afterSessionId: number, limit: number, asOf: string | null) =>
    orm.em.fork().transactional(async (em) => {
      const done = await mainDeliveriesOfDispatch(em, keyPrefix, afterSessionId);
      if (done.length > 0) return { rows: done, fresh: false };
      const rows = await insertMainDeliveryBatch(em, {
        ...rules,
        asOf,
        limit,
        deadlineSeconds: arena.mainDeadlineSeconds,
        keyPrefix,
      });
      return { rows, fresh: true };
    });

  return {
    /**
     * Dispatch steps recorded before batches (no `dispatch-every-due-agent` patch) call this: at most
     * one batch per step, keyed by the run, so a retried activity returns the same sessions.
     */
    async dispatchMainPrompts({ dispatchKey }: { dispatchKey: string }): Promise<DeliveryInput[]> {
      const { rows, fresh } = await batchOnce(`main:${dispatchKey}:`, 0, arena.dispatchBatch, null);
      if (fresh) dispatchAgentsServedTotal.inc(rows.length);
      return rows.map((row) => deliveryInputOf(row));
    },

    /**
     * Begins a dispatch step: the agents due now belong to it (those due later wait for the next
     * step, so a step always ends). Read-only, so a retry is harmless.
     */
    async beginDispatchStep(): Promise<Omit<DispatchCursor, 'stepKey' | 'batch' | 'served'>> {
      const em = orm.em.fork();
      const summary = await dueAgentsSummary(em, rules);
      const afterSessionId = await lastDeliveryId(em);
      dispatchDueAgents.set(summary.due);
      return {
        dueAsOf: summary.as_of,
        startedMs: summary.as_of_ms,
        afterSessionId,
        childrenPerRun: arena.dispatchChildrenPerRun,
      };
    },

    /**
     * One batch of a step: up to ARENA_DISPATCH_BATCH of the step's due agents, longest waiting
     * first, in one transaction. Keyed by the step and the batch number: a retried activity returns
     * the sessions its first attempt created. Stops the step at ARENA_DISPATCH_STEP_MAX agents.
     */
    async dispatchMainPromptBatch(
      cursor: Pick<DispatchCursor, 'stepKey' | 'batch' | 'dueAsOf' | 'afterSessionId' | 'served'>,
    ): Promise<DispatchBatch> {
      const limit = Math.min(arena.dispatchBatch, arena.dispatchStepMax - cursor.served);
      if (limit <= 0) return { deliveries: [], more: false };
      const keyPrefix = `main:${cursor.stepKey}:${cursor.batch}:`;
      // Heartbeats tell a slow batch from one lost with its worker (the workflow's heartbeat timeout
      // is twice this); a batch done within the interval sends none.
      const context = currentContext();
      const beat = setInterval(() => context?.heartbeat(), HEARTBEAT_EVERY_MS);
      const { rows, fresh } = await batchOnce(keyPrefix, cursor.afterSessionId, limit, cursor.dueAsOf).finally(() =>
        clearInterval(beat),
      );
      if (fresh) dispatchAgentsServedTotal.inc(rows.length);
      // A full batch may have left due agents behind; a short one served the last of them.
      const more = rows.length === limit && cursor.served + rows.length < arena.dispatchStepMax;
      return { deliveries: rows.map((row) => deliveryInputOf(row)), more };
    },

    /** Ends a step: what it served, and the due agents it left (the backlog), for /metrics. */
    async endDispatchStep({
      served,
      startedMs,
    }: Pick<DispatchCursor, 'served' | 'startedMs'>): Promise<{ backlog: number }> {
      const summary = await dueAgentsSummary(orm.em.fork(), rules);
      dispatchServedAgents.set(served);
      dispatchBacklogAgents.set(summary.due);
      dispatchLongestWait.set(summary.longest_wait_seconds);
      dispatchStepDuration.observe(Math.max(0, summary.as_of_ms - startedMs) / 1000);
      return { backlog: summary.due };
    },
  };
}

/** The running activity's context, or undefined when the function is called directly (a test of its statements). */
function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
