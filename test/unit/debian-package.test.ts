/**
 * Installing Debian tools: two installs asked for at once (bubblewrap and Chromium, as the test set-up
 * does on a fresh machine) must not run apt-get side by side, which fails on apt's lock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOrInstallDebianTool } from '../../infra/embedded/debian-package';

let dir: string;
let savedPath: string | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-apt-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  // A fake apt-get that holds apt's lock for a moment, fails as apt does when another holds it, and
  // "installs" a package by making its binary.
  fs.writeFileSync(
    path.join(dir, 'bin', 'apt-get'),
    [
      '#!/bin/sh',
      `lock="${dir}/lock"`,
      'mkdir "$lock" 2>/dev/null || { echo "E: Unable to lock directory /var/lib/apt/lists/" >&2; exit 100; }',
      'sleep 0.3',
      `if [ "$1" = install ]; then for last; do :; done; printf '#!/bin/sh\\n' > "${dir}/$last"; chmod +x "${dir}/$last"; fi`,
      'rmdir "$lock"',
    ].join('\n'),
    { mode: 0o755 },
  );
  savedPath = process.env.PATH;
  process.env.PATH = `${path.join(dir, 'bin')}:${savedPath}`;
});

afterEach(() => {
  process.env.PATH = savedPath;
  fs.rmSync(dir, { recursive: true, force: true });
});

const install = (pkg: string) =>
  findOrInstallDebianTool({ pkg, binary: path.join(dir, pkg), otherwise: 'install it by hand' });

it('installs two packages asked for at once one after the other', async () => {
  if (process.getuid?.() !== 0) throw new Error('this test installs as root does: run it as root');
  await expect(Promise.all([install('first-tool'), install('second-tool')])).resolves.toEqual([
    path.join(dir, 'first-tool'),
    path.join(dir, 'second-tool'),
  ]);
});
