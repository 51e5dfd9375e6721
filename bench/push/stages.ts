/** Rising offered load against one delivery system, stage by stage, with the latencies and CPU of each stage. */
import { sleep, wallNow } from '../lib/clock';
import { startCpuMeter } from '../lib/cpu';
import { paced } from '../lib/pacer';
import { ratePerSecond, summarize, type Summary } from '../lib/stats';
import type { Progress } from '../report/progress';

/** What the stage runner needs from the arena, the engine baseline or the bare loop. */
export interface DeliverySystem {
  name: string;
  /** Starts one delivery; `acceptedAt` when the system's own notion of "accepted" is not the call's answer. */
  send(stage: number, index: number): Promise<{ key: string; acceptedAt?: number }>;
  /** When the delivery reached the agent (or the no-op activity ran). */
  receivedAt(key: string): number | undefined;
  /** When each delivery was complete (recorded, closed, answered), once all are or `timeoutMs` passed. */
  completed(keys: string[], timeoutMs: number, onProgress: (n: number) => void): Promise<Map<string, number>>;
  cpuRoots(): Record<string, number>;
}

export interface StageResult {
  offered: number;
  seconds: number;
  sent: number;
  errors: number;
  firstError?: string;
  completed: number;
  /** Completed deliveries per second, from the first send to the last completion. */
  achieved: number;
  keptUp: boolean;
  /** Call -> accepted (the API's 202, the start call's answer). */
  accept: Summary;
  /** Accepted -> received by the agent (or the activity). */
  overhead: Summary;
  /** Call -> complete. */
  endToEnd: Summary;
  cpu: Record<string, number>;
  /** CPU time each process spent per completed delivery (ms): the cost of a delivery, whatever else loads the machine. */
  cpuMsPerDelivery: Record<string, number>;
}

/** A stage keeps up when it completes at least this share of the offered rate, with no errors. */
export const KEPT_UP_SHARE = 0.9;

export async function runStage(
  system: DeliverySystem,
  stage: number,
  rate: number,
  seconds: number,
  progress: Progress,
): Promise<StageResult> {
  const count = Math.max(1, Math.round(rate * seconds));
  const task = progress.task(`${system.name} @ ${rate}/s`, count * 2);
  const meter = startCpuMeter(() => system.cpuRoots());
  const accepted = new Map<string, number>();
  const sent = await paced(
    rate,
    count,
    async (i) => {
      const { key, acceptedAt } = await system.send(stage, i);
      accepted.set(key, acceptedAt ?? wallNow());
      return key;
    },
    (n) => task.update(n),
  );
  const keys = sent.filter((s) => s.value !== undefined).map((s) => s.value!);
  // A backlog drains at the achieved rate: give it time in proportion, within reason.
  const completions = await system.completed(keys, Math.max(30_000, seconds * 4_000), (n) => task.update(count + n));
  const cpu = meter.stop();
  await sleep(100); // the last arrival reports are batched
  task.done();

  const errors = sent.filter((s) => s.error !== undefined);
  const firstSent = sent[0]!.sentAt; // count is at least 1 and paced reports every send
  const doneTimes = [...completions.values()];
  const lastDone = doneTimes.length > 0 ? Math.max(...doneTimes) : NaN;
  const sentAt = new Map(sent.filter((s) => s.value).map((s) => [s.value!, s.sentAt]));
  const achieved = ratePerSecond(completions.size, firstSent, lastDone);
  return {
    offered: rate,
    seconds,
    sent: count,
    errors: errors.length + (keys.length - completions.size),
    firstError:
      errors[0]?.error ??
      (keys.length > completions.size ? `${keys.length - completions.size} never completed` : undefined),
    completed: completions.size,
    achieved,
    keptUp: errors.length === 0 && completions.size === keys.length && achieved >= KEPT_UP_SHARE * rate,
    accept: summarize(keys.map((k) => accepted.get(k)! - sentAt.get(k)!)),
    overhead: summarize(keys.map((k) => (system.receivedAt(k) ?? NaN) - accepted.get(k)!)),
    endToEnd: summarize(keys.map((k) => (completions.get(k) ?? NaN) - sentAt.get(k)!)),
    cpu: cpu.percent,
    cpuMsPerDelivery: Object.fromEntries(
      Object.entries(cpu.percent).map(([name, pct]) => [
        name,
        Math.round(((pct / 100) * cpu.seconds * 1000 * 10) / Math.max(1, completions.size)) / 10,
      ]),
    ),
  };
}

/**
 * Runs the rates in order and stops after the first stage that does not keep up (its backlog says
 * enough), unless `atLeast` stages have not run yet: a baseline always runs the arena's rates.
 */
export async function runStages(
  system: DeliverySystem,
  rates: number[],
  seconds: number,
  progress: Progress,
  atLeast = 0,
): Promise<StageResult[]> {
  const results: StageResult[] = [];
  for (const [i, rate] of rates.entries()) {
    const result = await runStage(system, i, rate, seconds, progress);
    results.push(result);
    progress.log(
      `${system.name} @ ${rate}/s: ${result.achieved.toFixed(0)}/s completed, overhead p50 ${result.overhead.p50.toFixed(1)} ms p99 ${result.overhead.p99.toFixed(1)} ms` +
        (result.firstError ? ` (${result.errors} errors: ${result.firstError})` : ''),
    );
    if (!result.keptUp && i + 1 >= atLeast) break;
    await sleep(500); // let timers and caches settle between stages
  }
  return results;
}
