/**
 * The worker's own reads and writes in a workspace, for the file steps and the hidden tests. The worker is
 * root and an agent can make links (`ln -s /etc/shadow x`), so no link is ever followed: every folder on
 * the way is checked with lstat, the file is opened with O_NOFOLLOW, and what was opened must be exactly
 * the named path inside the workspace. This relies on no command of the session running at the same time,
 * which the session's workflow ensures by taking one step at a time (and a finished command leaves no
 * process behind: its PID namespace dies with it).
 */
import { constants } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ArenaError, notFound } from '../../domain/errors';
import { workspacePath } from '../../domain/sandbox/paths';
import type { Workspace } from './workspaces';

export const MAX_WORKSPACE_FILE_BYTES = 1024 * 1024;
export const MAX_LISTED_ENTRIES = 1000;

export interface WorkspaceFile {
  /** Relative to the workspace root. */
  path: string;
  content: string | Uint8Array;
}

export interface WorkspaceEntry {
  name: string;
  type: 'file' | 'dir';
  /** Bytes of a file; 0 for a folder. */
  size: number;
}

export type WorkspaceRead = { type: 'file'; content: string } | { type: 'dir'; entries: WorkspaceEntry[] };

/** The workspace folder itself is gone (the worker's disk was wiped, or it was removed): the session cannot go on. */
export class WorkspaceLostError extends Error {
  constructor(workspace: Pick<Workspace, 'dir'>) {
    super(`workspace lost: ${workspace.dir} is gone`);
    this.name = 'WorkspaceLostError';
  }
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
/** O_NONBLOCK: opening a FIFO an agent left must not hang the worker. */
const OPEN_TO_READ = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const OPEN_TO_WRITE = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const FILE_MODE = 0o644;
const FOLDER_MODE = 0o755;

const invalid = (detail: string) => new ArenaError('invalid', detail);
const isLink = (name: string) =>
  invalid(`${name} is a symbolic link; the file API does not follow links (look at it with exec)`);

/** A file's text (UTF-8, at most 1 MiB), or a folder's entries. */
export async function readWorkspaceFile(workspace: Workspace, relative: string): Promise<WorkspaceRead> {
  const name = workspacePath(relative);
  const target = await walkTo(workspace, name, 'read');
  let handle: FileHandle;
  try {
    handle = await fs.open(target, OPEN_TO_READ);
  } catch (err) {
    throw refusalFor(err, name);
  }
  try {
    await ensureOpenedAt(handle, workspace, name);
    const stat = await handle.stat();
    if (stat.isDirectory()) return { type: 'dir', entries: await entriesOf(target, name) };
    if (!stat.isFile()) throw invalid(`${name} is not a regular file`);
    if (stat.size > MAX_WORKSPACE_FILE_BYTES)
      throw invalid(`${name} is larger than 1 MiB (${stat.size} bytes); read it in parts with exec (head -c, sed -n)`);
    const bytes = await handle.readFile();
    try {
      return { type: 'file', content: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
    } catch {
      throw invalid(`${name} is not UTF-8 text; look at it with exec (od -c)`);
    }
  } finally {
    await handle.close();
  }
}

/** A folder's entries, by name (the workspace root for `.`). */
export async function listWorkspace(workspace: Workspace, relative = '.'): Promise<WorkspaceEntry[]> {
  const read = await readWorkspaceFile(workspace, relative);
  if (read.type !== 'dir') throw invalid(`${workspacePath(relative)} is not a folder`);
  return read.entries;
}

/** An agent's write: makes missing folders, replaces a file's content, refuses links and folders in the way. */
export async function writeWorkspaceFile(
  workspace: Workspace,
  relative: string,
  content: string | Uint8Array,
): Promise<void> {
  const name = workspacePath(relative);
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  if (bytes.length > MAX_WORKSPACE_FILE_BYTES)
    throw invalid(`content must be at most 1 MiB (${bytes.length} bytes given)`);
  await writeFile(workspace, name, bytes, 'write');
}

/**
 * The service's own files (a task's starting files, its hidden tests at scoring): whatever the agent left
 * at those paths, links and folders included, is removed first.
 */
export async function copyIntoWorkspace(workspace: Workspace, files: WorkspaceFile[]): Promise<void> {
  for (const file of files) {
    const bytes = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
    await writeFile(workspace, workspacePath(file.path), bytes, 'replace');
  }
}

type Access = 'read' | 'write' | 'replace';

async function writeFile(workspace: Workspace, name: string, bytes: Uint8Array, access: Access): Promise<void> {
  if (name === '.') throw invalid('path must name a file, not the workspace root');
  const target = await walkTo(workspace, name, access);
  let handle: FileHandle | undefined;
  for (let attempt = 0; !handle; attempt++) {
    try {
      handle = await fs.open(target, OPEN_TO_WRITE, FILE_MODE);
      if (!(await handle.stat()).isFile()) {
        await handle.close();
        handle = undefined;
        throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
      }
    } catch (err) {
      if (access !== 'replace' || attempt > 0) throw refusalFor(err, name);
      await fs.rm(target, { recursive: true, force: true });
    }
  }
  try {
    await ensureOpenedAt(handle, workspace, name);
    await handle.chown(workspace.uid, workspace.uid);
    await handle.truncate(0);
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

/**
 * The host path of `name` after checking each folder on the way: none may be a link. Missing folders are
 * made (owned by the session's uid) for writes; in the way of a `replace`, links and files are removed.
 */
async function walkTo(workspace: Workspace, name: string, access: Access): Promise<string> {
  const root = await fs.lstat(workspace.dir).catch(() => undefined);
  if (!root?.isDirectory()) throw new WorkspaceLostError(workspace);
  if (name === '.') return workspace.dir;
  const names = name.split('/');
  let here = workspace.dir;
  for (const [index, part] of names.slice(0, -1).entries()) {
    here = path.join(here, part);
    const shown = names.slice(0, index + 1).join('/');
    const stat = await fs.lstat(here).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (stat?.isDirectory()) continue;
    if (access === 'read') {
      if (!stat) throw notFound(name);
      throw stat.isSymbolicLink() ? isLink(shown) : invalid(`${shown} is not a folder`);
    }
    if (stat && access === 'write') throw stat.isSymbolicLink() ? isLink(shown) : invalid(`${shown} is not a folder`);
    if (stat) await fs.rm(here, { recursive: true, force: true });
    await fs.mkdir(here, { mode: FOLDER_MODE });
    await fs.chown(here, workspace.uid, workspace.uid);
  }
  return path.join(workspace.dir, name);
}

/** What the descriptor really points at must be `name` in the workspace: the last guard against a swapped folder. */
async function ensureOpenedAt(handle: FileHandle, workspace: Workspace, name: string): Promise<void> {
  const opened = await fs.readlink(`/proc/self/fd/${handle.fd}`);
  const expected = path.join(await fs.realpath(workspace.dir), name === '.' ? '' : name);
  if (opened !== expected.replace(/\/$/, '')) throw invalid(`${name} leads outside the workspace`);
}

async function entriesOf(folder: string, name: string): Promise<WorkspaceEntry[]> {
  const dirents = await fs.readdir(folder, { withFileTypes: true });
  if (dirents.length > MAX_LISTED_ENTRIES)
    throw invalid(`${name} holds more than ${MAX_LISTED_ENTRIES} entries; list it with exec (ls)`);
  const entries: WorkspaceEntry[] = [];
  for (const dirent of dirents) {
    const stat = await fs.lstat(path.join(folder, dirent.name)).catch(() => undefined);
    if (!stat) continue;
    entries.push(
      stat.isDirectory()
        ? { name: dirent.name, type: 'dir', size: 0 }
        : { name: dirent.name, type: 'file', size: stat.size },
    );
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function refusalFor(err: unknown, name: string): Error {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return notFound(name);
    case 'ELOOP':
      return isLink(name);
    case 'EISDIR':
      return invalid(`${name} is a folder`);
    case 'ENXIO':
    case 'ENOTREG':
      return invalid(`${name} is not a regular file`);
    default:
      return err as Error;
  }
}
