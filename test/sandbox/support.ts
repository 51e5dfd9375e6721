/** Set-up shared by the sandbox tests: real workspaces in a scratch folder, each session with a uid of its own. */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type SandboxSettings } from '../../infra/config';
import { uidRangeOf } from '../../infra/sandbox/settings';
import { findOrInstallBubblewrap } from '../../infra/embedded/bubblewrap';
import { checkIsolation, probeOf } from '../../infra/sandbox/isolation';
import { prepareWorkspace, unmountIfMounted, type Workspace, type WorkspaceFile } from '../../infra/sandbox/workspaces';

export { processesOf } from '../../infra/sandbox/session-processes';

/**
 * A scratch folder per test file, like ARENA_SANDBOX_DIR (removed by `removeSandboxScratch`), with
 * the machine checked for isolation as a worker checks it at start, so commands can run.
 */
export async function sandboxScratch(): Promise<SandboxSettings> {
  await findOrInstallBubblewrap({ log: (line) => console.log(`[bubblewrap] ${line}`) });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-sandbox-test-'));
  const settings = { ...loadConfig({}).sandbox, dir };
  const check = await checkIsolation(probeOf(settings));
  if (!check.ok) throw new Error(check.reason);
  return settings;
}

export async function removeSandboxScratch(settings: SandboxSettings | undefined): Promise<void> {
  if (settings) await removeSandboxDir(settings.dir);
}

/** Removes a test's ARENA_SANDBOX_DIR, with the file systems of workspaces still in it (a session running when its worker stopped). */
export async function removeSandboxDir(dir: string): Promise<void> {
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) await unmountIfMounted(path.join(dir, name));
  await fs.rm(dir, { recursive: true, force: true });
}

/** What the fake bubblewrap of `brokenBwrapTools` says, and fails with. */
export const BWRAP_REFUSAL = 'bwrap: No permissions to create a new namespace';

/** What `probeIsolation` answers with the tools of `brokenBwrapTools`: bubblewrap's own words, passed on. */
export const BROKEN_BWRAP_PROBE = {
  ok: false,
  reason: `isolation unavailable: bwrap could not start a sandbox (${BWRAP_REFUSAL})`,
};

/**
 * A tool folder whose bwrap cannot make a sandbox (it says so and exits 1), beside the real setpriv
 * and prlimit; for `probeIsolation`'s `toolDirs`. Remove it when done.
 */
export async function brokenBwrapTools(): Promise<string> {
  const tools = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-broken-bwrap-'));
  await fs.chmod(tools, 0o755);
  await fs.writeFile(path.join(tools, 'bwrap'), `#!/bin/sh\necho "${BWRAP_REFUSAL}" >&2\nexit 1\n`, { mode: 0o755 });
  for (const tool of ['setpriv', 'prlimit', 'mount', 'umount'])
    await fs.symlink(`/usr/bin/${tool}`, path.join(tools, tool));
  return tools;
}

/** A session id no other test (in this file or another running at once) is likely to use, so neither shares a uid. */
export function freshSessionId(): number {
  return crypto.randomInt(1, 2_000_000_000);
}

/** The uid a test gives session `sessionId`: where a lease for it would start looking in the range. */
export function uidFor(settings: SandboxSettings, sessionId: number): number {
  return settings.uidBase + (sessionId % uidRangeOf(settings).sessions);
}

/** A real workspace holding `files`, for a fresh session id with a uid of its own. */
export function freshWorkspace(settings: SandboxSettings, files: WorkspaceFile[] = []): Promise<Workspace> {
  const sessionId = freshSessionId();
  return prepareWorkspace(sessionId, uidFor(settings, sessionId), files, settings);
}

/**
 * A fork bomb that keeps count: forks children that block on a pipe until a fork fails, then prints
 * how many it holds and the error's name, closes the pipe and reaps them.
 */
export const FORKER = [
  'import errno, os',
  'r, w = os.pipe()',
  'kids = []',
  'try:',
  '    while True:',
  '        pid = os.fork()',
  '        if pid == 0:',
  '            os.close(w)',
  '            os.read(r, 1)',
  '            os._exit(0)',
  '        kids.append(pid)',
  'except OSError as e:',
  '    print(len(kids), errno.errorcode[e.errno], flush=True)',
  'os.close(w)',
  'for pid in kids:',
  '    os.waitpid(pid, 0)',
].join('\n');
