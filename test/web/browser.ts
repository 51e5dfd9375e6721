/** Real Chromium for website tests: Debian's package, driven by playwright-core. */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve(__dirname, '..', '..', 'test-artifacts', 'screenshots');

export async function launchBrowser(): Promise<Browser> {
  // Set by test/support/global-setup.ts when it could neither find nor install Chromium.
  if (process.env.TEST_CHROMIUM_ERROR) throw new Error(process.env.TEST_CHROMIUM_ERROR);
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium package (the test set-up does, as root) or set CHROMIUM_PATH`,
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

/** Saves a full-page screenshot as a test artifact (git-ignored). */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
