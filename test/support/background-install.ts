/**
 * Installs the test set-up starts beside the tests (Chromium, Schemathesis, the Python A2A SDK), and
 * the tests' wait for them: a test that needs a tool waits for the set-up's install to end rather
 * than start a second one.
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import { until } from './wait';

const BACKGROUND_WAIT = { timeoutMs: 300_000, everyMs: 250 };

/**
 * Starts an install for the run's tests beside them (global-setup.ts): `marker` is written when it
 * ends, either way, and the environment variable `markerVar` names it for the tests. A failed install
 * is tried again, and reported, by the test that needs it.
 */
export function installInBackground(markerVar: string, marker: string, install: () => Promise<unknown>): Promise<void> {
  process.env[markerVar] = marker;
  const settle = (outcome: string) => fs.writeFile(marker, outcome);
  return install().then(
    () => settle('installed'),
    (err: unknown) => settle(`failed: ${err instanceof Error ? err.message : String(err)}`),
  );
}

/** Waits for the set-up's install named by `markerVar`, if one was started, rather than start a second. */
export async function afterBackgroundInstall(markerVar: string, what: string): Promise<void> {
  const marker = process.env[markerVar];
  if (marker) await until(() => existsSync(marker), `the test set-up's ${what} install`, BACKGROUND_WAIT);
}
