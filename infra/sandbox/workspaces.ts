/**
 * Session workspaces on the worker that holds them: `<ARENA_SANDBOX_DIR>/<session id>`, each a file system
 * of its own (a tmpfs sized by the disk quota, so the kernel refuses a write past it), private to the
 * session's own uid. The folder above lets those uids pass through to their own workspace, not list it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { DiskQuota, SandboxSettings } from './settings';
import { findSandboxTools } from './system-layout';
import { copyIntoWorkspace, type WorkspaceFile } from './workspace-files';

const run = promisify(execFile);

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

/** The folder of session `sessionId`'s workspace on this worker. */
export function workspaceDirOf(sessionId: number, settings: Pick<SandboxSettings, 'dir'>): string {
  if (!Number.isSafeInteger(sessionId) || sessionId < 1) throw new RangeError(`not a session id: ${sessionId}`);
  return path.join(settings.dir, String(sessionId));
}

/** Session `sessionId`'s workspace as it is on this worker (its uid is its owner's), or undefined when there is none. */
export async function findWorkspace(
  sessionId: number,
  settings: Pick<SandboxSettings, 'dir'>,
): Promise<Workspace | undefined> {
  const dir = workspaceDirOf(sessionId, settings);
  const stat = await fs.lstat(dir).catch(() => undefined);
  return stat?.isDirectory() ? { sessionId, dir, uid: stat.uid } : undefined;
}

/**
 * Makes session `sessionId`'s workspace, owned by `uid` (the session's lease) and holding `files`,
 * replacing any left by an earlier attempt, so a retried preparation starts from the same files.
 */
export async function prepareWorkspace(
  sessionId: number,
  uid: number,
  files: WorkspaceFile[],
  settings: Pick<SandboxSettings, 'dir' | 'quota'>,
): Promise<Workspace> {
  const workspace = { sessionId, dir: workspaceDirOf(sessionId, settings), uid };
  await prepareWorkspaceRoot(settings.dir);
  await removeWorkspace(workspace);
  await fs.mkdir(workspace.dir, { mode: WORKSPACE_MODE });
  await mountQuota(workspace, settings.quota);
  await copyIntoWorkspace(workspace, files);
  return workspace;
}

/** Mounts a tmpfs of the quota's size on the workspace's folder: the kernel keeps the quota, in bytes and files. */
export async function mountQuota(workspace: Pick<Workspace, 'dir' | 'uid'>, quota: DiskQuota): Promise<void> {
  const tools = await findSandboxTools();
  if ('missing' in tools) throw new Error(`${tools.missing} is not installed: workspaces cannot be given a disk quota`);
  const options = [
    `size=${quota.bytes}`,
    `nr_inodes=${quota.files}`,
    `mode=${WORKSPACE_MODE.toString(8)}`,
    `uid=${workspace.uid}`,
    `gid=${workspace.uid}`,
    'nosuid',
    'nodev',
  ];
  try {
    await run(tools.mount, ['-t', 'tmpfs', '-o', options.join(','), 'arena-workspace', workspace.dir], { env: {} });
  } catch (err) {
    const said = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
    throw new Error(`the workspace's disk quota could not be set (mount: ${said})`);
  }
}

/** Deletes the workspace and everything in it (its file system first); links inside are removed, never followed. */
export async function removeWorkspace(workspace: Pick<Workspace, 'dir' | 'sessionId'>): Promise<void> {
  // The workspace's folder is named after its session: never let a damaged name reach some other folder.
  if (path.basename(workspace.dir) !== String(workspace.sessionId) || !path.isAbsolute(workspace.dir))
    throw new Error(`${workspace.dir} is not the workspace of session ${workspace.sessionId}`);
  await unmountIfMounted(workspace.dir);
  await fs.rm(workspace.dir, { recursive: true, force: true });
}

/** Detaches the file system mounted on `dir`, if one is (a workspace's quota, left by a worker that stopped). */
export async function unmountIfMounted(dir: string): Promise<void> {
  const [here, above] = await Promise.all([fs.lstat(dir).catch(() => undefined), fs.stat(path.dirname(dir))]);
  if (!here?.isDirectory() || here.dev === above.dev) return;
  const tools = await findSandboxTools();
  if ('missing' in tools) throw new Error(`${tools.missing} is not installed: ${dir} cannot be unmounted`);
  // Lazy: nothing of the session runs any more, and a lingering open file must not keep the folder.
  await run(tools.umount, ['--lazy', dir], { env: {} });
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
  // The folders above it as the kernel walks them: a link on the way leads through its target's.
  for (let above = path.dirname(await fs.realpath(dir)); ; above = path.dirname(above)) {
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
