/**
 * Fair shares of the CPU: the arena's control groups (a steps' group weighted low, one per scoring),
 * and a sandbox that is in its group before anything of it starts. The groups are made in a folder
 * standing for the cgroup v1 `cpu` mount, so the test runs the same on any host.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SandboxSettings } from '../../../infra/config';
import { CpuGroups } from '../../../infra/sandbox/cpu-groups';
import { runIsolated } from '../../../infra/sandbox/isolation';
import { removeWorkspace, type Workspace } from '../../../infra/sandbox/workspaces';
import { freshWorkspace, removeSandboxScratch, sandboxScratch } from '../../sandbox/support';

let settings: SandboxSettings;
let workspace: Workspace;
let mount: string;

beforeAll(async () => {
  settings = await sandboxScratch();
  workspace = await freshWorkspace(settings);
});
beforeEach(async () => {
  mount = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-cpu-mount-'));
  await fs.writeFile(path.join(mount, 'cpu.shares'), '1024');
});
afterEach(() => fs.rm(mount, { recursive: true, force: true }));
afterAll(async () => {
  await removeWorkspace(workspace);
  await removeSandboxScratch(settings);
});

/** The arena's group under the mount (the host's own cpu group, "/" here, in between). */
async function arenaGroup(): Promise<string> {
  const [name] = (await fs.readdir(mount, { recursive: true })).map(String).filter((n) => /agent-arena-\w+$/.test(n));
  return path.join(mount, name!);
}

it("weighs the agents' steps together at an eighth of one scoring", async () => {
  const groups = await CpuGroups.open(settings.dir, mount);
  expect(groups.unavailable).toBeUndefined();
  const root = await arenaGroup();
  expect(await groups.steps()).toBe(path.join(root, 'steps'));
  expect(await fs.readFile(path.join(root, 'steps', 'cpu.shares'), 'utf8')).toBe('128');
  const scoring = await groups.scoring(4242);
  expect(scoring).toBe(path.join(root, 'scoring-4242'));
  expect(await fs.readFile(path.join(scoring!, 'cpu.shares'), 'utf8')).toBe('1024');
  // A real group's control files go with it; this folder's stay, so its removal is not asked of it here.
  await fs.rm(path.join(scoring!, 'cpu.shares'));
  await groups.close(scoring);
  await expect(fs.access(scoring!)).rejects.toThrow();
});

it("puts the sandbox's first process in the group before it starts anything", async () => {
  const groups = await CpuGroups.open(settings.dir, mount);
  const scoring = (await groups.scoring(4243))!;
  const result = await runIsolated({
    workspace,
    command: ['/bin/sh', '-c', 'echo started'],
    timeoutSeconds: 30,
    limits: settings.limits,
    cpuGroup: scoring,
  });
  expect(result).toMatchObject({ exit_code: 0, stdout: 'started\n' });
  // The shell in front of prlimit wrote its own pid, then became prlimit, then the sandbox.
  expect(await fs.readFile(path.join(scoring, 'cgroup.procs'), 'utf8')).toMatch(/^\d+\n$/);
});

it('says why there are no groups where the host has no cpu controller, and runs sandboxes as before', async () => {
  await fs.rm(path.join(mount, 'cpu.shares'));
  const groups = await CpuGroups.open(settings.dir, mount);
  expect(groups.unavailable).toBe('the host has no cgroup v1 cpu controller');
  expect(await groups.steps()).toBeUndefined();
  expect(await groups.scoring(4244)).toBeUndefined();
  const result = await runIsolated({
    workspace,
    command: ['/bin/sh', '-c', 'echo started'],
    timeoutSeconds: 30,
    limits: settings.limits,
    cpuGroup: await groups.steps(),
  });
  expect(result).toMatchObject({ exit_code: 0, stdout: 'started\n' });
});

it('removes the empty groups of workers killed on this host, keeps those in use, and makes its own again when removed', async () => {
  // A killed worker's groups, empty; another arena's, with a process in its steps' group (here: a file).
  await fs.mkdir(path.join(mount, 'agent-arena-000000000001', 'steps'), { recursive: true });
  await fs.mkdir(path.join(mount, 'agent-arena-000000000002', 'steps'), { recursive: true });
  await fs.writeFile(path.join(mount, 'agent-arena-000000000002', 'steps', 'cgroup.procs'), '4242\n');
  const groups = await CpuGroups.open(settings.dir, mount);
  const names = (await fs.readdir(mount)).filter((name) => name.startsWith('agent-arena-'));
  expect(names).toHaveLength(2);
  expect(names).toContain('agent-arena-000000000002');
  expect(names).not.toContain('agent-arena-000000000001');
  // Another worker's start removed this arena's steps' group while it was empty: the next step makes it again.
  const steps = (await groups.steps())!;
  await fs.rm(steps, { recursive: true });
  expect(await groups.steps()).toBe(steps);
  expect(await fs.readFile(path.join(steps, 'cpu.shares'), 'utf8')).toBe('128');
});
