/**
 * Prometheus metrics (prom-client). Delivery outcomes are counted where they are recorded (the
 * worker's recordOutcome), in this process's registry; the API adds its own per-app metrics; the
 * Temporal SDK's metrics come from the runtime's exporter on a loopback port and are appended.
 */
import { timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { isLoopbackHost } from '../config';

/** Metrics of this process, whatever it runs: the worker's deliveries and Node's own (memory, event loop, GC). */
export const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry });

export const deliveriesTotal = new Counter({
  name: 'arena_deliveries_total',
  help: 'Prompt deliveries recorded, by kind, mode and outcome (answered, error, timeout, cancelled).',
  labelNames: ['kind', 'mode', 'outcome'] as const,
  registers: [processRegistry],
});

export const codingSessionsTotal = new Counter({
  name: 'arena_coding_sessions_total',
  help: 'Coding sandbox sessions ended, by outcome (passed, failed, timeout, error, cancelled).',
  labelNames: ['status'] as const,
  registers: [processRegistry],
});

export const codingArenaFaultsTotal = new Counter({
  name: 'arena_coding_arena_faults_total',
  help: "Coding sandbox sessions ended as `error` by the arena's own failure (a lost worker, a sandbox that could not start): not counted as the agent's attempts. `arena coding faults` lists them.",
  registers: [processRegistry],
});

export const codingStepLatency = new Histogram({
  name: 'arena_coding_step_seconds',
  help: "Coding sandbox steps on the workspace's worker, by kind (exec, read, write), from start to result.",
  labelNames: ['kind'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [processRegistry],
});

export const deliveryLatency = new Histogram({
  name: 'arena_delivery_latency_seconds',
  help: 'From the prompt leaving the arena to the answer arriving, for answered deliveries.',
  labelNames: ['kind', 'mode'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  registers: [processRegistry],
});

export const pushAgentsMadeInactive = new Counter({
  name: 'arena_push_agents_made_inactive_total',
  help: 'Push agents made inactive because their deliveries kept failing.',
  registers: [processRegistry],
});

// The dispatch step runs in the worker, so these are set there and show on the worker's /metrics.
export const dispatchDueAgents = new Gauge({
  name: 'arena_dispatch_due_agents',
  help: 'Agents due a main prompt when the latest dispatch step began.',
  registers: [processRegistry],
});

export const dispatchServedAgents = new Gauge({
  name: 'arena_dispatch_served_agents',
  help: 'Agents the latest finished dispatch step sent a main prompt.',
  registers: [processRegistry],
});

export const dispatchAgentsServedTotal = new Counter({
  name: 'arena_dispatch_agents_served_total',
  help: 'Main prompts dispatch steps have sent (one per agent served).',
  registers: [processRegistry],
});

export const dispatchBacklogAgents = new Gauge({
  name: 'arena_dispatch_backlog_agents',
  help: 'Agents due a main prompt and not yet served when the latest dispatch step ended.',
  registers: [processRegistry],
});

export const dispatchLongestWait = new Gauge({
  name: 'arena_dispatch_longest_wait_seconds',
  help: 'Of those, the longest any has waited past its gap (ARENA_MIN_GAP_SECONDS) since its last main prompt.',
  registers: [processRegistry],
});

export const dispatchStepDuration = new Histogram({
  name: 'arena_dispatch_step_seconds',
  help: 'How long dispatch steps took, from counting the due agents to the last delivery started.',
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  registers: [processRegistry],
});

let sdkMetricsUrl: string | undefined;

/** Where this process's Temporal runtime exports its metrics (set when the runtime is installed with them). */
export function setSdkMetricsAddress(bindAddress: string): void {
  sdkMetricsUrl = `http://${bindAddress}/metrics`;
}

async function sdkMetricsText(): Promise<string> {
  if (!sdkMetricsUrl) return '';
  try {
    const res = await fetch(sdkMetricsUrl, { signal: AbortSignal.timeout(2_000) });
    return res.ok ? await res.text() : '';
  } catch {
    // The exporter is part of this process; if it does not answer, the arena's own metrics still do.
    return '';
  }
}

/** The exposition text of these registries (this process's first), then the Temporal SDK's metrics. */
export async function metricsText(...registries: Registry[]): Promise<string> {
  const own = await Registry.merge([processRegistry, ...registries]).metrics();
  const sdk = await sdkMetricsText();
  return sdk ? `${own.trimEnd()}\n${sdk}` : own;
}

export const METRICS_CONTENT_TYPE = processRegistry.contentType;

/** Whether an Authorization header carries the metrics token (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
  if (!given) return false;
  const [a, b] = [Buffer.from(given), Buffer.from(token)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Why a scrape is refused, or undefined to serve it. Without a token, metrics are served only by a
 * process that listens on loopback: they name routes, load and queue sizes, not for the network.
 */
export function metricsRefusal(
  access: { host: string; token?: string },
  authorization: string | undefined,
): { status: 401 | 403; detail: string } | undefined {
  if (access.token) {
    return bearerMatches(authorization, access.token)
      ? undefined
      : { status: 401, detail: 'metrics need Authorization: Bearer <ARENA_METRICS_TOKEN>' };
  }
  if (isLoopbackHost(access.host)) return undefined;
  return {
    status: 403,
    detail:
      'metrics are not served to the network without a token: set ARENA_METRICS_TOKEN and send Authorization: Bearer <token>',
  };
}

/**
 * Active agents that have been sent every active pool prompt (dispatch has nothing left for them),
 * counted from the database on each scrape of the registry it joins: when it grows, add prompts.
 */
export function poolExhaustedGauge(registry: Registry, countAgents: () => Promise<number>): Gauge {
  return new Gauge({
    name: 'arena_agents_pool_exhausted',
    help: 'Active agents that have been sent every active pool prompt, so dispatch has nothing left for them (from the database).',
    registers: [registry],
    async collect() {
      this.set(await countAgents());
    },
  });
}
