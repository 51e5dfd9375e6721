/** The bench's side of the engine baseline: its worker process, and when each workflow's activity ran and the workflow closed. */
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { REPO, startChild, type BenchChild } from '../stack/child';
import type { BenchStack } from '../stack/stack';
import { ENGINE_TASK_QUEUE } from './task-queue';

export interface EngineBaseline {
  child: BenchChild;
  /** When the no-op activity ran, by workflow id (its tag). */
  arrivals: Map<string, number>;
  stop(): Promise<void>;
}

/** `sandboxDir`: also serve the sandbox steps (`stepSession`), with a workspace in that folder. */
export async function startEngineBaseline(
  stack: BenchStack,
  opts: { sandboxDir?: string } = {},
): Promise<EngineBaseline> {
  const bundle = await stack.bundle('engine', path.join(REPO, 'bench', 'engine', 'workflows.ts'));
  const child = startChild({
    name: 'engine worker',
    script: 'bench/engine/engine-worker.ts',
    env: {
      ...stack.env,
      BENCH_ENGINE_BUNDLE: bundle,
      ...(opts.sandboxDir ? { BENCH_ENGINE_SANDBOX_DIR: opts.sandboxDir } : {}),
    },
    logFile: stack.logFile('engine-worker'),
    ipc: true,
  });
  const arrivals = new Map<string, number>();
  child.process.on('message', (msg: { arrivals?: Array<[string, number]> }) => {
    for (const [tag, at] of msg.arrivals ?? []) if (!arrivals.has(tag)) arrivals.set(tag, at);
  });
  await child.message((m): m is { ready: true } => typeof m === 'object' && m !== null && 'ready' in m, 120_000);
  return { child, arrivals, stop: () => child.stop(15_000) };
}

export function startEngineWorkflow(
  client: Client,
  type: 'noopDelivery' | 'timerThenNoop',
  workflowId: string,
  args: unknown[],
): Promise<unknown> {
  return client.workflow.start(type, { taskQueue: ENGINE_TASK_QUEUE, workflowId, args });
}

/** Close times (wall ms) of the given workflows, read from Temporal once all of them have closed. */
export async function closeTimes(client: Client, ids: string[], timeoutMs: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const until = Date.now() + timeoutMs;
  // Describe calls, not a visibility query: visibility is written asynchronously and may lag under load.
  const queue = [...ids];
  while (queue.length > 0 && Date.now() < until) {
    const batch = queue.splice(0, 64);
    const described = await Promise.all(
      batch.map((id) =>
        client.workflow
          .getHandle(id)
          .describe()
          .then(
            (d) => ({ id, close: d.closeTime?.getTime() }),
            () => ({ id, close: undefined }),
          ),
      ),
    );
    for (const { id, close } of described) {
      if (close !== undefined) out.set(id, close);
      else queue.push(id);
    }
    if (described.every((d) => d.close === undefined)) await new Promise((r) => setTimeout(r, 200));
  }
  return out;
}
