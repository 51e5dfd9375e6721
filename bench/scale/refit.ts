/**
 * Runs the leaderboard refresh child and watches it: stopped after `timeoutSeconds`, or once its
 * resident memory passes `maxRssMb` (a solver that needs far more than the target must not take
 * the machine down with it); either way the figure says so instead of hanging.
 */
import { rssBytes } from '../lib/proc';
import { startChild } from '../stack/child';
import type { BenchStack } from '../stack/stack';
import type { RefitReport } from './refit-child';

export type RefitOutcome =
  | ({ finished: true; wallMs: number } & RefitReport)
  | { finished: false; reason: string; wallMs: number; votes: number; agents: number; maxRssMb: number };

function isReport(msg: unknown): msg is RefitReport {
  return typeof msg === 'object' && msg !== null && 'refreshMs' in msg;
}

export async function measureRefit(
  stack: BenchStack,
  expected: { votes: number; agents: number },
  limits: { timeoutSeconds: number; maxRssMb: number },
): Promise<RefitOutcome> {
  const child = startChild({
    name: 'leaderboard refresh',
    script: 'bench/scale/refit-child.ts',
    env: { ...stack.env },
    logFile: stack.logFile('scale-refit'),
    ipc: true,
  });
  const started = performance.now();
  let peakRssMb = 0;
  let stopped: string | undefined;
  const watch = setInterval(() => {
    const rss = rssBytes(child.pid) / 2 ** 20;
    if (Number.isFinite(rss)) peakRssMb = Math.max(peakRssMb, rss);
    if (peakRssMb > limits.maxRssMb && !stopped) {
      stopped = `stopped when its RSS passed ${limits.maxRssMb} MB`;
      void child.stop(1_000);
    }
  }, 250);
  try {
    const report = await child.message(isReport, limits.timeoutSeconds * 1000);
    return { finished: true, wallMs: performance.now() - started, ...report };
  } catch (err) {
    const wallMs = performance.now() - started;
    await child.stop(1_000);
    const reason =
      stopped ??
      (wallMs >= limits.timeoutSeconds * 1000
        ? `did not finish in ${limits.timeoutSeconds} s`
        : `failed: ${err instanceof Error ? err.message : String(err)}`);
    return { finished: false, reason, wallMs, ...expected, maxRssMb: peakRssMb };
  } finally {
    clearInterval(watch);
  }
}
