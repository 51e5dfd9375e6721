'use strict';
// Retrying calls to the payment provider, which fails now and then, with a growing pause between attempts.

const defaultSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `operation(attempt)` until it succeeds, at most `attempts` times in all, pausing `delayMs` after
 * the first failure and twice as long after each later one (at most `maxDelayMs`). Rejects with the last
 * error, or at once with an error `shouldRetry` refuses.
 */
async function retry(
  operation,
  { attempts = 3, delayMs = 100, maxDelayMs = Infinity, shouldRetry = () => true, sleep = defaultSleep } = {},
) {
  let delay = delayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= attempts || !shouldRetry(error)) throw error;
      await sleep(Math.min(delay, maxDelayMs));
      delay *= 2;
    }
  }
}

module.exports = { retry };
