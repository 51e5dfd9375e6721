/** The soak's memory samples: every process's RSS, and the API's and worker's V8 heap from their /metrics. */
import fs from 'node:fs/promises';
import { sleep } from '../lib/clock';
import { rssBytes } from '../lib/proc';
import type { BenchStack } from '../stack/stack';
import type { MemorySample } from './report';

/** V8 heap used from a Prometheus text page, MB; NaN when it cannot be read (the process is down). */
async function heapUsedMb(url: string | undefined): Promise<number> {
  if (!url) return Number.NaN;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    const text = await res.text();
    const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([\d.e+]+)/m.exec(text);
    return match ? Number(match[1]) / 2 ** 20 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The worker prints its metrics address when it polls; a restarted worker prints a new one. */
async function workerMetricsUrl(logFile: string): Promise<string | undefined> {
  const text = await fs.readFile(logFile, 'utf8').catch(() => '');
  const all = [...text.matchAll(/metrics at (http:\/\/\S+)/g)];
  return all.at(-1)?.[1];
}

/**
 * Samples the stack's memory every `everyMs` until stopped; `since()` is the time each sample is
 * counted from (the load's start). `stop()` resolves with the samples once the last one is taken.
 */
export function sampleMemory(
  stack: BenchStack,
  everyMs: number,
  since: () => number,
): { stop: () => Promise<MemorySample[]> } {
  const samples: MemorySample[] = [];
  let sampling = true;
  let workerMetrics: { pid: number; url?: string } = { pid: 0 };
  const sample = async () => {
    const pids = stack.pids();
    // Read again after a restart, and after a failed read: the new worker prints its address once it polls.
    if (workerMetrics.pid !== pids.worker || !workerMetrics.url) {
      const url = await workerMetricsUrl(stack.logFile('worker'));
      workerMetrics = { pid: pids.worker ?? 0, url };
    }
    const rssMb: Record<string, number> = {};
    for (const name of ['api', 'worker', 'postgres', 'temporal'])
      rssMb[name] = pids[name] ? rssBytes(pids[name]) / 2 ** 20 : Number.NaN;
    const [api, worker] = await Promise.all([heapUsedMb(`${stack.apiUrl}/metrics`), heapUsedMb(workerMetrics.url)]);
    if (!Number.isFinite(worker)) workerMetrics.url = undefined;
    samples.push({ t: Date.now() - since(), rssMb, heapMb: { api, worker } });
  };
  const sampler = (async () => {
    while (sampling) {
      await sample().catch(() => undefined);
      await sleep(everyMs);
    }
  })();
  return {
    stop: async () => {
      sampling = false;
      await sampler;
      return samples;
    },
  };
}
