/**
 * Waiting on a condition the test cannot be told about (another process, a server's state, a
 * browser), checking every `everyMs` rather than sleeping a fixed time. The one helper of its kind:
 * every test waits through `eventually` or `until`.
 */

/** What a check says while it is not yet true: undefined, null or false. */
type NotYet = undefined | null | false;

export interface WaitOptions {
  /** Fails after this long (30 s unless set). */
  timeoutMs?: number;
  /** Checks again this long after a check ends (100 ms unless set). */
  everyMs?: number;
}

/**
 * Resolves with the first value `check` gives that is not undefined, null or false; fails, naming
 * `what`, after the timeout. A check's own error fails the wait at once.
 */
export async function eventually<T>(
  check: () => T | NotYet | Promise<T | NotYet>,
  what: string | (() => string) = 'the condition',
  timeoutOrOptions: number | WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, everyMs = 100 } =
    typeof timeoutOrOptions === 'number' ? { timeoutMs: timeoutOrOptions } : timeoutOrOptions;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Resolves once `check` gives a truthy value; fails, naming `what`, after the timeout. */
export async function until(
  check: () => unknown,
  what: string | (() => string) = 'the condition',
  timeoutOrOptions: number | WaitOptions = {},
): Promise<void> {
  await eventually(async () => Boolean(await check()), what, timeoutOrOptions);
}
