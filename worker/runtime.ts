/**
 * The Temporal runtime of a process that runs workers: the SDK's logs (its own and the worker
 * core's) as the same redacted JSON lines as the API's, with the workflow and activity ids the
 * SDK attaches; and the SDK's metrics exported on a loopback port that /metrics appends.
 */
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { freePort } from '../infra/ports';
import { createLogger, type LogFormat } from '../infra/logging';
import { setSdkMetricsAddress } from '../infra/metrics';

const SDK_LEVELS: Record<string, LogLevel> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
  silent: 'ERROR',
};

export interface WorkerRuntimeOptions {
  logLevel: string;
  /** JSON lines or, for a person at a terminal, pretty ones (see resolveLogFormat). */
  logFormat: LogFormat;
  /** Export the SDK's metrics (workflow and activity task latencies, slots, polls…). */
  metrics: boolean;
  /** Signals on which the SDK stops every worker by itself; `npm start` passes none and stops them in order. */
  shutdownSignals?: NodeJS.Signals[];
}

/** The worker's own sandbox queue runs activities only, so the SDK's warning that it polls no workflows is expected. */
export function isExpectedSdkWarning(message: string): boolean {
  return message.startsWith('No workflows registered, not polling for workflow tasks');
}

export async function installWorkerRuntime({
  logLevel,
  logFormat,
  metrics,
  shutdownSignals,
}: WorkerRuntimeOptions): Promise<void> {
  const log = createLogger(logLevel, { name: 'worker', format: logFormat });
  const level = SDK_LEVELS[logLevel] ?? 'INFO';
  const logger = new DefaultLogger(level, (entry) => {
    if (logLevel === 'silent' || isExpectedSdkWarning(entry.message)) return;
    const method =
      entry.level === 'TRACE'
        ? 'trace'
        : entry.level === 'DEBUG'
          ? 'debug'
          : entry.level === 'WARN'
            ? 'warn'
            : entry.level === 'ERROR'
              ? 'error'
              : 'info';
    log[method]({ ...entry.meta, sdk: true }, entry.message);
  });
  const bindAddress = metrics ? `127.0.0.1:${await freePort()}` : undefined;
  Runtime.install({
    logger,
    ...(shutdownSignals ? { shutdownSignals } : {}),
    telemetryOptions: {
      logging: {
        filter: { core: level === 'TRACE' || level === 'DEBUG' ? level : 'WARN', other: 'WARN' },
        forward: {},
      },
      ...(bindAddress ? { metrics: { prometheus: { bindAddress } } } : {}),
    },
  });
  if (bindAddress) setSdkMetricsAddress(bindAddress);
}
