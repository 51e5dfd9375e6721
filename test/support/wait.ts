/** Awaits a condition the test cannot be told about (another process, a server's state), checking every `everyMs`. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000, everyMs = 50): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
