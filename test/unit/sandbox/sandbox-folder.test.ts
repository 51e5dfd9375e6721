/**
 * Arenas apart on one machine: each arena's sandbox folder is its own by default (named after its data
 * folder, where the sessions' users can reach it), a worker claims it at start and refuses one the
 * sessions' users cannot reach or another arena claimed, with a sentence naming it, and an arena
 * removes workspaces only from its own folder.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig, type SandboxSettings } from '../../../infra/config';
import { SandboxRuntime } from '../../../infra/sandbox/runtime';
import { claimSandboxFolder, SandboxFolderError } from '../../../infra/sandbox/sandbox-folder';
import { prepareWorkspace, prepareWorkspaceRoot, unmountIfMounted } from '../../../infra/sandbox/workspaces';
import { judgesScratch, removeJudgesScratch } from '../../../infra/sandbox/clean-room';
import { HostUidLocks } from '../../../infra/sandbox/host-uid-locks';
import { removeSandboxScratch, sandboxScratch } from '../../sandbox/support';

let settings: SandboxSettings;
let scratch: string;
beforeAll(async () => {
  settings = await sandboxScratch();
});
beforeEach(async () => {
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-folders-'));
  await fs.chmod(scratch, 0o711);
});
afterEach(() => fs.rm(scratch, { recursive: true, force: true }));
afterAll(() => removeSandboxScratch(settings));

/** A database that must not be asked: an arena has nothing to look up about a folder that is not its own. */
const noDatabase = new Proxy({} as EntityManager, {
  get() {
    throw new Error('the database was asked');
  },
});

it("defaults to a folder of the arena's own, named after its data folder, in the OS temp folder", () => {
  const a = loadConfig({ ARENA_DATA_DIR: '/srv/arena-a' }).sandbox;
  const b = loadConfig({ ARENA_DATA_DIR: '/srv/arena-b' }).sandbox;
  expect(a.dir).not.toBe(b.dir);
  expect(path.dirname(a.dir)).toBe(os.tmpdir());
  expect(path.basename(a.dir)).toMatch(/^arena-sandbox-[0-9a-f]{12}$/);
  expect(a.arena).toBe('/srv/arena-a');
  expect(loadConfig({ ARENA_DATA_DIR: '/srv/arena-a' }).sandbox.dir).toBe(a.dir);
  expect(loadConfig({ ARENA_DATA_DIR: '/srv/arena-a', ARENA_SANDBOX_DIR: '/var/arena' }).sandbox.dir).toBe(
    '/var/arena',
  );
});

it("refuses a folder the sessions' users cannot reach, through a link too, with a sentence naming it", async () => {
  const closed = path.join(scratch, 'closed');
  await fs.mkdir(path.join(closed, 'open'), { recursive: true, mode: 0o755 });
  await fs.chmod(closed, 0o700);
  // Every folder on the written path lets others pass; the link's target does not.
  await fs.symlink(path.join(closed, 'open'), path.join(scratch, 'link'));
  const dir = path.join(scratch, 'link', 'sandbox');
  await expect(prepareWorkspaceRoot(dir)).rejects.toThrow(
    `ARENA_SANDBOX_DIR ${dir} cannot be reached by the sessions' users: ${closed} does not let others pass (mode 700); choose a folder outside it`,
  );
  const runtime = new SandboxRuntime({ ...settings, dir, arena: '/srv/arena-a' }, 'queue');
  await expect(runtime.claimFolder()).rejects.toThrow(SandboxFolderError);
});

it('claims a folder for one arena: another arena is refused it, and sweeps nothing there', async () => {
  const dir = path.join(scratch, 'sandbox');
  await claimSandboxFolder(dir, '/srv/arena-a', settings.uidBase + settings.uidCount - 1);
  await claimSandboxFolder(dir, '/srv/arena-a', settings.uidBase + settings.uidCount - 1);
  await fs.mkdir(path.join(dir, '17'));
  const other = new SandboxRuntime({ ...settings, dir, arena: '/srv/arena-b' }, 'queue');
  await expect(other.claimFolder()).rejects.toThrow(
    `ARENA_SANDBOX_DIR ${dir} keeps the workspaces of another arena (data folder /srv/arena-a): give each arena a sandbox folder of its own`,
  );
  await other.sweep(noDatabase);
  await expect(fs.stat(path.join(dir, '17'))).resolves.toBeDefined();
});

it("removes what a scoring cut short left beside a workspace: the clean room and the judge's folder", async () => {
  const dir = path.join(scratch, 'sandbox');
  const runtime = new SandboxRuntime({ ...settings, dir, arena: '/srv/arena-a' }, 'queue');
  await runtime.claimFolder();
  await prepareWorkspace(17, settings.uidBase + 17, [], runtime.settings);
  await fs.mkdir(path.join(dir, '17-score'));
  await fs.mkdir(path.join(dir, '17-score-judge'));
  await runtime.remove(17);
  await runtime.close();
  expect(await fs.readdir(dir)).toEqual(['.arena-data-dir']);
});

it("keeps a judge's scratch file system between scorings, emptied as each takes it, and mounts it again when gone", async () => {
  const dir = path.join(scratch, 'sandbox');
  await prepareWorkspaceRoot(dir);
  const uid = settings.uidBase + 23;
  const quota = { bytes: 1024 * 1024, files: 64 };
  const first = await judgesScratch(dir, uid, quota);
  expect(first).toBe(path.join(dir, `judge-${uid}-scratch`));
  const mounted = async () => (await fs.readFile('/proc/self/mounts', 'utf8')).includes(` ${first} tmpfs `);
  expect(await mounted()).toBe(true);
  expect((await fs.stat(first)).uid).toBe(uid);
  // A test's temporary files, left by the scoring before.
  await fs.mkdir(path.join(first, 'tmp123'));
  await fs.writeFile(path.join(first, 'tmp123', 'data.txt'), 'a hidden test wrote this');
  expect(await judgesScratch(dir, uid, quota)).toBe(first);
  expect(await fs.readdir(first)).toEqual([]);
  // Past the quota, a write fails: the tests cannot fill the worker's disk.
  await expect(fs.writeFile(path.join(first, 'big'), Buffer.alloc(2 * 1024 * 1024))).rejects.toThrow(/ENOSPC/);
  await unmountIfMounted(first);
  await fs.writeFile(path.join(first, 'left.txt'), 'on the disk below');
  expect(await judgesScratch(dir, uid, quota)).toBe(first);
  expect(await mounted()).toBe(true);
  expect(await fs.readdir(first)).toEqual([]);
  // A stopping worker removes it, unless a judge on the host holds its uid.
  const judge = new HostUidLocks();
  expect(await judge.hold(uid)).toBe(true);
  await removeJudgesScratch(dir);
  expect(await mounted()).toBe(true);
  await judge.release(uid);
  await removeJudgesScratch(dir);
  expect(await mounted()).toBe(false);
  expect(await fs.readdir(dir)).toEqual([]);
});
