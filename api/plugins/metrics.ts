/**
 * GET /metrics in the Prometheus text format: this app's HTTP durations by route, open long-polls
 * and queued work items, plus everything the process counts (deliveries when a worker runs here,
 * Node's own) and the Temporal SDK's metrics. With ARENA_METRICS_TOKEN set it wants that token;
 * without one it is served only when the API listens on loopback.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Gauge, Histogram, Registry } from 'prom-client';
import { queuedWorkCount } from '../../infra/db/repositories/work-item.repository';
import { agentsWithPoolExhausted } from '../../infra/db/repositories/prompt.repository';
import { METRICS_CONTENT_TYPE, metricsRefusal, metricsText, poolExhaustedGauge } from '../../infra/metrics';
import { ApiError } from '../errors';

declare module 'fastify' {
  interface FastifyInstance {
    /** Long-polls waiting in this process right now (work/next). */
    openLongPolls: Gauge;
    /** Counts a request answered outside Fastify's reply (a long-poll) as onResponse counts the others. */
    recordRequest(method: string, route: string, statusCode: number, seconds: number): void;
  }
}

export interface MetricsOptions {
  orm: MikroORM;
  /** The API's listen address (HOST): without a token, metrics are served on loopback only. */
  host: string;
  token?: string;
}

export const metricsPlugin = fp<MetricsOptions>(
  async (app: FastifyInstance, { orm, host, token }) => {
    const registry = new Registry();
    const httpDuration = new Histogram({
      name: 'arena_http_request_duration_seconds',
      help: 'API and website requests, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30, 60],
      registers: [registry],
    });
    app.decorate(
      'openLongPolls',
      new Gauge({
        name: 'arena_long_polls_open',
        help: 'Pull long-polls (work/next) waiting in this API process.',
        registers: [registry],
      }),
    );
    new Gauge({
      name: 'arena_work_items_queued',
      help: 'Pull work items queued and not yet handed to a runner (all agents, from the database).',
      registers: [registry],
      async collect() {
        this.set(await queuedWorkCount(orm.em));
      },
    });
    poolExhaustedGauge(registry, () => agentsWithPoolExhausted(orm.em));

    const recordRequest = (method: string, route: string, statusCode: number, seconds: number) =>
      httpDuration.observe({ method, route, status_code: String(statusCode) }, seconds);
    app.decorate('recordRequest', recordRequest);
    app.addHook('onResponse', async (request, reply) => {
      // The route pattern, never the raw URL: ids and query strings would make a series per request.
      recordRequest(
        request.method,
        request.routeOptions.url ?? 'unmatched',
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
    });

    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      const refusal = metricsRefusal({ host, token }, request.headers.authorization);
      if (refusal) throw new ApiError(refusal.status, refusal.detail);
      return reply
        .type(METRICS_CONTENT_TYPE)
        .header('Cache-Control', 'no-store')
        .send(await metricsText(registry));
    });
  },
  { name: 'metrics' },
);
