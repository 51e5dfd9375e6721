/** Real Chromium for website tests: Debian's headless shell, driven by playwright-core. */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_MARKER_VARIABLE, DEBIAN_CHROMIUM } from '../support/chromium';
import { afterBackgroundInstall } from '../support/background-install';

const CHROMIUM = process.env.CHROMIUM_PATH || DEBIAN_CHROMIUM;
const ARTIFACTS = path.resolve(__dirname, '..', '..', 'test-artifacts', 'screenshots');

export async function launchBrowser(): Promise<Browser> {
  // The test set-up finds or installs it beside the tests (test/support/global-setup.ts).
  await afterBackgroundInstall(CHROMIUM_MARKER_VARIABLE, 'Chromium');
  const outcome = fs.readFileSync(process.env[CHROMIUM_MARKER_VARIABLE] ?? '/dev/null', 'utf8');
  if (outcome.startsWith('failed: ')) throw new Error(outcome.slice('failed: '.length));
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium-headless-shell package (the test set-up does, as root) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Saves a full-page screenshot as a test artifact (git-ignored) when TEST_SCREENSHOTS=1. Each one
 * costs Chromium most of a CPU-second, and a run that nobody looks at (CI's) needs none.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.TEST_SCREENSHOTS !== '1') return;
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
