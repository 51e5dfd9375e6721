/** Reading /metrics in tests. Its counters belong to the process, so a test compares a count before and after. */
import type { TestApp } from './test-app';

/** The value of one sample in Prometheus text (labels in any order), or undefined. */
export function metricSample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

/** One sample of the app's /metrics now, 0 when it has none yet. */
export async function metricNow(t: TestApp, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  return metricSample(text, name, labels) ?? 0;
}
