/** Jest global teardown: stops the servers of global-setup.ts and removes their temporary folder. */
import fs from 'node:fs/promises';

export default async function globalTeardown(): Promise<void> {
  const stack = globalThis.__arenaTestStack;
  if (!stack) return;
  globalThis.__arenaTestStack = undefined;
  const results = await Promise.allSettled([...stack.stops.map((stop) => stop()), ...stack.background]);
  await fs.rm(stack.tempDir, { recursive: true, force: true });
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
}
