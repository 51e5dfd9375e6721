/** Waiting between retries: jittered exponential backoff, Retry-After, and sleeps a stop can cut short. */

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** Injected by tests that need a fixed delay; Math.random otherwise. */
  random?: () => number;
}

/**
 * "Full jitter": each wait is random between 0 and an exponentially growing cap, so many runners
 * that lost the arena at the same moment do not all come back at the same moment.
 */
export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly random: () => number;

  constructor(opts: BackoffOptions = {}) {
    this.initialMs = opts.initialMs ?? 500;
    this.maxMs = opts.maxMs ?? 30_000;
    this.random = opts.random ?? Math.random;
  }

  nextDelayMs(): number {
    const cap = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    if (cap < this.maxMs) this.attempt += 1;
    return Math.round(this.random() * cap);
  }

  reset(): void {
    this.attempt = 0;
  }
}

/** Retry-After as delta seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date names its day and month; without letters Date.parse would take "-1" as a year.
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Resolves after ms, or at once when the signal aborts; never rejects. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
