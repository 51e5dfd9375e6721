/** Wall-clock time in fractional milliseconds that agrees across processes on one machine. */

/**
 * Date.now() has millisecond steps, too coarse for latencies of a few ms; timeOrigin plus the
 * monotonic clock keeps sub-millisecond resolution and is comparable with another process's
 * reading and with PostgreSQL's now(), which all come from the same system clock.
 */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` every `everyMs` until it is true; throws naming `what` (read at that moment) after `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  what: string | (() => string),
  timeoutMs: number,
  everyMs = 200,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until)
      throw new Error(
        `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${typeof what === 'string' ? what : what()}`,
      );
    await sleep(everyMs);
  }
}
