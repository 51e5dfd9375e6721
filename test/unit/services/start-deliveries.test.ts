/**
 * The front door's failure path with nothing behind it: a Temporal client whose start fails for
 * some workflows, and an entity manager that only records the statements it is given.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { WrittenDelivery } from '../../../domain/deliveries';
import { ArenaError } from '../../../domain/errors';
import { startDeliveries } from '../../../services/start-deliveries';
import type { WorkflowDeps } from '../../../services/workflow-client';

const row = (id: number): WrittenDelivery => ({
  id,
  agent_id: 7,
  kind: 'sandbox',
  mode: 'push',
  category: 'sandbox',
  deadline_seconds: 60,
});

/** Workflows whose start fails, by workflow id; the ids of those started, in order; the statements run. */
function world(failing: string[]) {
  const started: string[] = [];
  const statements: Array<{ sql: string; params: unknown[] }> = [];
  const client = {
    connection: { withDeadline: (_deadline: number, call: () => Promise<unknown>) => call() },
    workflow: {
      start: (_fn: unknown, options: { workflowId: string; args: unknown[] }) => {
        if (failing.includes(options.workflowId)) return Promise.reject(new Error('Temporal is unreachable'));
        started.push(options.workflowId);
        return Promise.resolve({ workflowId: options.workflowId });
      },
    },
  } as unknown as Client;
  const em = {
    getConnection: () => ({
      execute: (sql: string, params: unknown[]) => {
        statements.push({ sql, params });
        return Promise.resolve([]);
      },
    }),
    getTransactionContext: () => undefined,
  } as unknown as EntityManager;
  const workflows: WorkflowDeps = {
    client,
    taskQueue: 'arena',
    gymRetrySeconds: 60,
    callTimeoutMs: 1_000,
    eagerStart: false,
  };
  return { started, statements, em, workflows };
}

describe('startDeliveries', () => {
  it('starts one workflow per row from the written row, and writes nothing when all start', async () => {
    const w = world([]);
    await startDeliveries(w.em, w.workflows, [row(1), row(2)], { kind: 'delivery', redeliveryOf: 'sandbox-9' });
    expect(w.started).toEqual(['delivery-1', 'delivery-2']);
    expect(w.statements).toEqual([]);
  });

  it('closes only the rows whose workflow did not start, and answers 503', async () => {
    const w = world(['delivery-2']);
    const error = await startDeliveries(w.em, w.workflows, [row(1), row(2), row(3)], { kind: 'delivery' }).catch(
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ArenaError);
    expect(error).toMatchObject({
      kind: 'unavailable',
      detail: 'the delivery service is unavailable; try again shortly',
    });
    expect(w.started).toEqual(['delivery-1', 'delivery-3']);
    expect(w.statements).toHaveLength(1);
    expect(w.statements[0]!.params).toEqual(['the delivery could not be started', 2]);
  });

  it('closes both sides of a live battle whose one workflow did not start', async () => {
    const w = world(['battle-5']);
    await expect(
      startDeliveries(w.em, w.workflows, [row(1), row(2)], { kind: 'liveBattle', battleId: 5 }),
    ).rejects.toMatchObject({ kind: 'unavailable' });
    expect(w.statements[0]!.params).toEqual(['the delivery could not be started', 1, 2]);
  });
});
