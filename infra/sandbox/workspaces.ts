/**
 * Session workspaces on the worker that holds them: `<ARENA_SANDBOX_DIR>/<session id>`, each private to
 * the session's own uid. The folder above lets those uids pass through to their own workspace, not list it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SandboxSettings } from './settings';
import { copyIntoWorkspace, type WorkspaceFile } from './workspace-files';

export {
  copyIntoWorkspace,
  listWorkspace,
  readWorkspaceFile,
  writeWorkspaceFile,
  WorkspaceLostError,
  MAX_WORKSPACE_FILE_BYTES,
  MAX_LISTED_ENTRIES,
  type WorkspaceEntry,
  type WorkspaceFile,
  type WorkspaceRead,
} from './workspace-files';

/** A session's workspace: plain data, so a workflow can pass it from one activity to the next. */
export interface Workspace {
  sessionId: number;
  /** The folder on the worker. */
  dir: string;
  /** The uid its commands run as and its files belong to. */
  uid: number;
}

const ROOT_MODE = 0o711;
const WORKSPACE_MODE = 0o700;

/** Session n's uid: stable, so a retried step runs as the same user; two sessions share one only uidCount apart. */
export function uidForSession(sessionId: number, settings: Pick<SandboxSettings, 'uidBase' | 'uidCount'>): number {
  if (!Number.isSafeInteger(sessionId) || sessionId < 1) throw new RangeError(`not a session id: ${sessionId}`);
  return settings.uidBase + (sessionId % settings.uidCount);
}

export function workspaceOf(sessionId: number, settings: SandboxSettings): Workspace {
  return { sessionId, dir: path.join(settings.dir, String(sessionId)), uid: uidForSession(sessionId, settings) };
}

/**
 * Makes session `sessionId`'s workspace holding `files`, replacing any left by an earlier attempt, so a
 * retried preparation starts from the same files.
 */
export async function prepareWorkspace(
  sessionId: number,
  files: WorkspaceFile[],
  settings: SandboxSettings,
): Promise<Workspace> {
  const workspace = workspaceOf(sessionId, settings);
  await prepareWorkspaceRoot(settings.dir);
  await fs.rm(workspace.dir, { recursive: true, force: true });
  await fs.mkdir(workspace.dir, { mode: WORKSPACE_MODE });
  await fs.chown(workspace.dir, workspace.uid, workspace.uid);
  await copyIntoWorkspace(workspace, files);
  return workspace;
}

export async function workspaceExists(workspace: Workspace): Promise<boolean> {
  const stat = await fs.lstat(workspace.dir).catch(() => undefined);
  return stat?.isDirectory() ?? false;
}

/** Deletes the workspace and everything in it; links inside are removed, never followed. */
export async function removeWorkspace(workspace: Workspace): Promise<void> {
  // The workspace arrives through workflow history: never let a damaged one name some other folder.
  if (path.basename(workspace.dir) !== String(workspace.sessionId) || !path.isAbsolute(workspace.dir))
    throw new Error(`${workspace.dir} is not the workspace of session ${workspace.sessionId}`);
  await fs.rm(workspace.dir, { recursive: true, force: true });
}

/**
 * ARENA_SANDBOX_DIR: made if missing, owned by this process, mode 711 (others may pass, not list). Each
 * folder above it must let others pass too: bubblewrap reaches the workspace as the session's uid.
 */
export async function prepareWorkspaceRoot(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: ROOT_MODE });
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory()) throw new Error(`ARENA_SANDBOX_DIR ${dir} is not a folder`);
  if (stat.uid !== process.getuid?.())
    throw new Error(`ARENA_SANDBOX_DIR ${dir} belongs to uid ${stat.uid}, not to the worker: choose another folder`);
  if ((stat.mode & 0o777) !== ROOT_MODE) await fs.chmod(dir, ROOT_MODE);
  for (let above = path.dirname(dir); ; above = path.dirname(above)) {
    const mode = (await fs.stat(above)).mode & 0o777;
    if ((mode & 0o001) === 0) {
      throw new Error(
        `ARENA_SANDBOX_DIR ${dir} cannot be reached by the sessions' users: ${above} does not let others pass ` +
          `(mode ${mode.toString(8)}); choose a folder outside it`,
      );
    }
    if (above === path.dirname(above)) break;
  }
}
