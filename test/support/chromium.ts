/**
 * Finds the Chromium the browser tests drive (playwright-core cannot download one here), installing
 * Debian's package through apt when run as root (infra/embedded/debian-package.ts, as for bubblewrap).
 * The package is Chromium's headless shell, the build Playwright itself runs headless tests on: the
 * same Blink and V8 without the desktop browser around them, which took three times the CPU (46
 * against 16 CPU-seconds over test/web/pages.test.ts).
 */
import { findOrInstallDebianTool, isExecutable } from '../../infra/embedded/debian-package';

export const DEBIAN_CHROMIUM = '/usr/bin/chromium-headless-shell';

/** Names the marker file the test set-up writes when its Chromium install ends (`installed`, or `failed: <why>`). */
export const CHROMIUM_MARKER_VARIABLE = 'TEST_CHROMIUM_MARKER';

export interface FindChromiumOptions {
  /** CHROMIUM_PATH: used as is, and an error if it is not an executable file. */
  explicitPath?: string;
  log?: (line: string) => void;
}

export async function findOrInstallChromium(opts: FindChromiumOptions = {}): Promise<string> {
  if (opts.explicitPath) {
    if (!(await isExecutable(opts.explicitPath)))
      throw new Error(`CHROMIUM_PATH is ${opts.explicitPath}, which is not an executable file`);
    return opts.explicitPath;
  }
  return findOrInstallDebianTool({
    pkg: 'chromium-headless-shell',
    binary: DEBIAN_CHROMIUM,
    otherwise: 'set CHROMIUM_PATH to a Chromium or Chrome binary',
    log: opts.log,
  });
}
