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
import { mountQuota, prepareWorkspace, prepareWorkspaceRoot } from '../../../infra/sandbox/workspaces';
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

it("removes what a scoring cut short left beside a workspace: the clean room, the judge's folder and its scratch file system", async () => {
  const dir = path.join(scratch, 'sandbox');
  const runtime = new SandboxRuntime({ ...settings, dir, arena: '/srv/arena-a' }, 'queue');
  await runtime.claimFolder();
  const uid = settings.uidBase + 17;
  await prepareWorkspace(17, uid, [], runtime.settings);
  await fs.mkdir(path.join(dir, '17-score'));
  await fs.mkdir(path.join(dir, '17-score-judge'));
  await fs.mkdir(path.join(dir, '17-score-scratch'));
  await mountQuota({ dir: path.join(dir, '17-score-scratch'), uid }, settings.quota);
  await runtime.remove(17);
  await runtime.cpu.remove();
  expect(await fs.readdir(dir)).toEqual(['.arena-data-dir']);
  expect(await fs.readFile('/proc/self/mounts', 'utf8')).not.toContain(path.join(dir, '17'));
});
