/**
 * The arena's own sandbox folder on this machine (ARENA_SANDBOX_DIR, by default one named after its
 * data folder: settings.ts). A worker claims the folder at start with a marker naming its arena, so
 * two arenas never share one (each would take the other's workspaces for those of its own ended
 * sessions), and refuses to start when the sessions' users cannot reach it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findSandboxTools } from './system-layout';
import { prepareWorkspaceRoot } from './workspaces';

const run = promisify(execFile);

/** The file in the sandbox folder naming the arena that keeps its workspaces there (its data folder). */
export const ARENA_MARKER = '.arena-data-dir';

/** The sandbox folder cannot be this arena's: the worker does not start, and says why. */
export class SandboxFolderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxFolderError';
  }
}

/**
 * Makes the folder ready for the arena whose data folder is `arena`, or refuses it with a sentence
 * naming it: one the sessions' users cannot reach (tried as `probeUid`, one of theirs, so links,
 * mounts and access lists count as they will), or one another arena claimed.
 */
export async function claimSandboxFolder(dir: string, arena: string, probeUid: number): Promise<void> {
  try {
    await prepareWorkspaceRoot(dir);
  } catch (err) {
    throw new SandboxFolderError((err as Error).message);
  }
  await enterAs(dir, probeUid);
  const marker = path.join(dir, ARENA_MARKER);
  const claimedBy = () =>
    fs.readFile(marker, 'utf8').then(
      (text) => text.trim(),
      () => undefined,
    );
  let claimed = await claimedBy();
  if (claimed === undefined) {
    // Two workers starting at once: the second reads what the first wrote.
    await fs.writeFile(marker, `${arena}\n`, { mode: 0o600, flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    claimed = await claimedBy();
  }
  if (claimed !== arena) {
    throw new SandboxFolderError(
      `ARENA_SANDBOX_DIR ${dir} keeps the workspaces of another arena (data folder ${claimed}): give each arena a sandbox folder of its own`,
    );
  }
}

/** Whether the folder is the arena's own (its marker names it): only then are workspaces in it removed. */
export async function isArenasFolder(dir: string, arena: string): Promise<boolean> {
  const claimed = await fs.readFile(path.join(dir, ARENA_MARKER), 'utf8').catch(() => undefined);
  return claimed?.trim() === arena;
}

/** Enters the folder as `uid`, as bubblewrap will for a session: a folder it cannot enter is refused. */
async function enterAs(dir: string, uid: number): Promise<void> {
  const tools = await findSandboxTools();
  // Without the tools no session starts at all, and the isolation check says why.
  if ('missing' in tools) return;
  try {
    await run(
      tools.setpriv,
      [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', '/bin/sh', '-c', 'cd -- "$1"', 'sh', dir],
      { env: {}, timeout: 10_000 },
    );
  } catch {
    throw new SandboxFolderError(
      `ARENA_SANDBOX_DIR ${dir} cannot be reached by the sessions' users (uid ${uid} cannot enter it): choose a folder every user may pass through, such as one in ${os.tmpdir()}`,
    );
  }
}
