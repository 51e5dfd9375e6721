/** The soak's faults: one of each kind per round, at fixed places in the round, each restored before the next. */
import { sleep } from '../lib/clock';
import type { BenchStack } from '../stack/stack';
import type { FaultRecord } from './report';

/**
 * Where each fault sits in its round, as a fraction of the round: after its first fifth and done
 * before its last (20 s outages in a 2-minute round just fit), so with one round the latencies of
 * the first and last fifths are the stack's own, not an outage's.
 */
const FAULT_PLACES: Array<[FaultRecord['kind'], number]> = [
  ['worker-kill', 0.22],
  ['api-restart', 0.32],
  ['postgres-stop', 0.42],
  ['temporal-stop', 0.6],
];

async function inject(stack: BenchStack, kind: FaultRecord['kind'], outageMs: number): Promise<void> {
  switch (kind) {
    case 'worker-kill':
      return stack.killAndRestartWorker();
    case 'api-restart':
      return stack.restartApi();
    case 'postgres-stop':
      await stack.stopPostgres();
      await sleep(outageMs); // the outage's length is the point here, not a condition
      return stack.startPostgres();
    case 'temporal-stop':
      await stack.stopTemporal();
      await sleep(outageMs);
      return stack.startTemporal();
  }
}

export interface FaultRun {
  /** Resolves with what was done once the schedule is through (or stopped). */
  done: Promise<FaultRecord[]>;
  /** No fault still to come starts; one under way finishes. */
  stop(): void;
}

/**
 * Runs `rounds` rounds of faults over `loadMs` from `loadStart`, logging each. A fault that fails is
 * recorded with its error and the schedule goes on.
 */
export function runFaults(
  stack: BenchStack,
  { loadStart, loadMs, rounds, outageMs }: { loadStart: number; loadMs: number; rounds: number; outageMs: number },
  log: (line: string) => void,
): FaultRun {
  let on = true;
  const roundMs = loadMs / rounds;
  const schedule = Array.from({ length: rounds }, (_, r) =>
    FAULT_PLACES.map(([kind, place]) => ({ kind, at: r * roundMs + place * roundMs })),
  ).flat();
  const done = (async () => {
    const faults: FaultRecord[] = [];
    for (const f of schedule) {
      // Short steps, so teardown is never held up by a fault still to come.
      while (on && Date.now() - loadStart < f.at) await sleep(Math.min(1_000, f.at - (Date.now() - loadStart)));
      if (!on || Date.now() - loadStart >= loadMs) break;
      const startMs = Date.now() - loadStart;
      log(`fault at ${Math.round(startMs / 1000)} s: ${f.kind}`);
      let error: string | undefined;
      try {
        await inject(stack, f.kind, outageMs);
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
        log(`fault ${f.kind} failed: ${error}`);
      }
      faults.push({ kind: f.kind, startMs, endMs: Date.now() - loadStart, ...(error ? { error } : {}) });
    }
    return faults;
  })();
  return { done, stop: () => void (on = false) };
}
