/**
 * The front door of every delivery a use case writes: an owner's sandbox task, a coding session, a
 * live battle's two sides, an operator's redelivery. Their workflows start from the written rows
 * (`deliveryInputOf`); when Temporal cannot take them, the rows close as the arena's own failure and
 * the caller hears 503. (The dispatch, the gym and a live battle's replacements start theirs from
 * inside workflows, from the same `deliveryInputOf`.)
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { WrittenDelivery } from '../domain/deliveries';
import { closeUnstartedDeliveries } from '../infra/db/repositories/delivery.repository';
import { deliveryInputOf, type DeliveryInput } from '../workflows/contracts';
import {
  deliveryUnavailable,
  startCodingSessionWorkflow,
  startDelivery,
  startLiveBattle,
  type WorkflowDeps,
} from './workflow-client';

/** Which workflow carries the written deliveries. */
export type DeliveryWorkflow =
  /** One delivery workflow per row; `redeliveryOf` is the original's public id for an operator's redelivery. */
  | { kind: 'delivery'; redeliveryOf?: string }
  /** The two rows as the sides of one live battle. */
  | { kind: 'liveBattle'; battleId: number }
  /** The row as a coding session on `taskId`. */
  | { kind: 'codingSession'; taskId: string; maxSteps: number; redeliveryOf?: string };

const UNSTARTED = 'the delivery could not be started';

/**
 * Starts the workflows of deliveries already written (and flushed). A start that fails closes them,
 * with whatever hangs on them (a coding session, a live battle), logs why, and answers 503.
 */
export async function startDeliveries(
  em: EntityManager,
  workflows: WorkflowDeps,
  rows: readonly WrittenDelivery[],
  workflow: DeliveryWorkflow,
  log?: Pick<FastifyBaseLogger, 'error'>,
): Promise<void> {
  const redeliveryOf = workflow.kind === 'liveBattle' ? undefined : workflow.redeliveryOf;
  const inputs = rows.map((row) => deliveryInputOf(row, redeliveryOf));
  const started = new Set<number>();
  try {
    await start(workflows, inputs, workflow, started);
  } catch (err) {
    // Only what did not start closes: a started workflow delivers its row.
    const sessionIds = rows.map((row) => row.id).filter((id) => !started.has(id));
    await closeUnstartedDeliveries(em, sessionIds, UNSTARTED);
    log?.error({ err, sessionIds, ...workflow }, 'could not start a delivery');
    throw deliveryUnavailable();
  }
}

/** Starts the workflows, adding each delivery whose workflow started to `started`; throws the first failure. */
async function start(
  workflows: WorkflowDeps,
  inputs: DeliveryInput[],
  workflow: DeliveryWorkflow,
  started: Set<number>,
): Promise<void> {
  const each = async (startOne: (input: DeliveryInput) => Promise<void>) => {
    const results = await Promise.allSettled(
      inputs.map((input) => startOne(input).then(() => void started.add(input.sessionId))),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  };
  switch (workflow.kind) {
    case 'delivery':
      return each((input) => startDelivery(workflows, input));
    case 'liveBattle': {
      const [a, b] = inputs;
      if (!a || !b || inputs.length !== 2) throw new Error(`a live battle has two sides, not ${inputs.length}`);
      await startLiveBattle(workflows, { battleId: workflow.battleId, deliveries: [a, b] });
      return;
    }
    case 'codingSession':
      return each((input) =>
        startCodingSessionWorkflow(workflows, { ...input, taskId: workflow.taskId, maxSteps: workflow.maxSteps }),
      );
  }
}
