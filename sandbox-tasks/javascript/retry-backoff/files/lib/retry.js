'use strict';
// Retrying calls to the payment provider, which fails now and then, with a growing pause between attempts.

const defaultSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `operation(attempt)` until it succeeds, at most `attempts` times in all, pausing `delayMs` after
 * the first failure and twice as long after each later one.
 */
async function retry(operation, { attempts = 3, delayMs = 100, sleep = defaultSleep } = {}) {
  let delay = delayMs;
  for (let attempt = 1; attempt < attempts; attempt++) {
    try {
      return await operation(attempt);
    } catch {
      await sleep(delay);
      delay += delayMs;
    }
  }
  throw new Error('all attempts failed');
}

module.exports = { retry };
