/** The bench's side of the agent farm: starts it, and keeps the arrival time of every delivery it saw. */
import { startChild, type BenchChild } from '../stack/child';
import type { FarmBehaviour, FarmMessage, FarmRequest } from './agent-farm';

export interface Farm {
  urls: string[];
  child: BenchChild;
  /** Arrival time (wall ms) by X-Arena-Delivery; the first arrival wins. */
  arrivals: Map<string, number>;
  stop(): Promise<void>;
}

export async function startFarm(behaviours: FarmBehaviour[], env: NodeJS.ProcessEnv, logFile: string): Promise<Farm> {
  const child = startChild({ name: 'agent farm', script: 'bench/push/agent-farm.ts', env, logFile, ipc: true });
  const arrivals = new Map<string, number>();
  child.process.on('message', (msg: FarmMessage) => {
    if (!('arrivals' in msg)) return;
    for (const [id, at] of msg.arrivals) if (!arrivals.has(id)) arrivals.set(id, at);
  });
  const ready = child.message(
    (m): m is { ready: string[] } => typeof m === 'object' && m !== null && 'ready' in m,
    30_000,
  );
  child.process.send({ start: behaviours } satisfies FarmRequest);
  const { ready: urls } = await ready;
  return {
    urls,
    child,
    arrivals,
    async stop() {
      if (child.process.connected) child.process.send({ stop: true } satisfies FarmRequest);
      await child.stop(5_000);
    },
  };
}
