/** Finds bubblewrap, which runs every command of a coding sandbox session, installing Debian's package as root. */
import { findOrInstallDebianTool } from './debian-package';

export const DEBIAN_BWRAP = '/usr/bin/bwrap';

export function findOrInstallBubblewrap(opts: { log?: (line: string) => void } = {}): Promise<string> {
  return findOrInstallDebianTool({
    pkg: 'bubblewrap',
    binary: DEBIAN_BWRAP,
    otherwise: "install Debian's bubblewrap package another way",
    log: opts.log,
  });
}
