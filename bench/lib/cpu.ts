/** CPU use of every process in the stack over an interval: where the time went during a stage. */
import { treeCpuMs } from './proc';
import { wallNow } from './clock';

export interface CpuWindow {
  /** Percent of one core, by process name (200 = both cores of a 2-core machine). */
  percent: Record<string, number>;
  seconds: number;
}

export interface CpuMeter {
  stop(): CpuWindow;
}

/** `roots` is read at start and at stop; the bench process itself counts as `bench` (without its children). */
export function startCpuMeter(roots: () => Record<string, number>): CpuMeter {
  const pids = roots();
  const before: Record<string, number> = { ...treeCpuMs(pids), bench: benchMs() };
  const startedAt = wallNow();
  return {
    stop() {
      const after: Record<string, number> = { ...treeCpuMs(pids), bench: benchMs() };
      const seconds = (wallNow() - startedAt) / 1000;
      const percent: Record<string, number> = {};
      for (const [name, ms] of Object.entries(after)) {
        percent[name] = Math.round(((ms - (before[name] ?? 0)) / (seconds * 1000)) * 1000) / 10;
      }
      return { percent, seconds };
    },
  };
}

function benchMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
