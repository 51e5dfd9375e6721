/**
 * Fair shares of the machine's CPU, where the host lets the worker make control groups (the cgroup v1
 * `cpu` controller, writable: a root worker on most v1 hosts). Under a group of the arena's own, the
 * agents' steps share one group, and each scoring (its judge and its candidate) has one of its own,
 * weighted eight times the steps' group: however many processes an account's sessions run, a scoring
 * gets its share of the CPU, and the steps theirs. Elsewhere (cgroup v2 without a delegated subtree,
 * a worker that is not root) nothing is bounded this way, and `npm start` and the worker say so.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** cgroup v1's default weight is 1024: the steps, all together, weigh an eighth of one scoring. */
const STEPS_SHARES = 128;
const SCORING_SHARES = 1024;

export class CpuGroups {
  private constructor(
    /** The arena's group, or undefined where none can be made. */
    private readonly root: string | undefined,
    /** Why there is none. */
    readonly unavailable?: string,
  ) {}

  /**
   * The arena's groups on this host, named after its sandbox folder (one per arena on a machine).
   * Groups that workers killed on this host left behind, empty, are removed (one in use refuses).
   */
  static async open(sandboxDir: string, mount = '/sys/fs/cgroup/cpu'): Promise<CpuGroups> {
    const own = await ownCpuGroup();
    const base = path.join(mount, own ?? '/');
    if (!(await exists(path.join(base, 'cpu.shares'))))
      return new CpuGroups(undefined, 'the host has no cgroup v1 cpu controller');
    for (const name of await fs.readdir(base).catch(() => [] as string[]))
      if (name.startsWith('agent-arena-')) await removeIfEmpty(path.join(base, name));
    const key = createHash('sha256').update(path.resolve(sandboxDir)).digest('hex').slice(0, 12);
    const groups = new CpuGroups(path.join(base, `agent-arena-${key}`));
    try {
      await groups.made('steps', STEPS_SHARES);
    } catch (err) {
      return new CpuGroups(
        undefined,
        `the worker cannot make cpu control groups (${(err as NodeJS.ErrnoException).code ?? err})`,
      );
    }
    return groups;
  }

  /** No groups: CPU is shared as the kernel shares it by default. */
  static none(why: string): CpuGroups {
    return new CpuGroups(undefined, why);
  }

  /** The agents' steps' group. */
  async steps(): Promise<string | undefined> {
    return this.root ? this.made('steps', STEPS_SHARES).catch(() => undefined) : undefined;
  }

  /** A group of its own for the scoring whose judge runs as `judgeUid`; remove it with `close`. */
  async scoring(judgeUid: number): Promise<string | undefined> {
    return this.root ? this.made(`scoring-${judgeUid}`, SCORING_SHARES).catch(() => undefined) : undefined;
  }

  /** Removes a scoring's group once nothing of it runs (one with processes left is removed at a later start). */
  async close(dir: string | undefined): Promise<void> {
    if (dir) await fs.rmdir(dir).catch(() => undefined);
  }

  /** Removes the arena's groups as its worker stops, those in use (by another worker of it on this host) excepted. */
  async remove(): Promise<void> {
    if (this.root) await removeIfEmpty(this.root);
  }

  /** The arena's group `name`, made with its weight where it is not there (another worker's start may have removed it). */
  private async made(name: string, shares: number): Promise<string> {
    const dir = path.join(this.root!, name);
    if (await fs.mkdir(dir, { recursive: true })) await fs.writeFile(path.join(dir, 'cpu.shares'), String(shares));
    return dir;
  }
}

/** Removes a group and the groups in it, but any with a process in it (and so the groups above that one). */
async function removeIfEmpty(group: string): Promise<void> {
  for (const entry of await fs.readdir(group, { withFileTypes: true }).catch(() => []))
    if (entry.isDirectory()) await removeIfEmpty(path.join(group, entry.name));
  await fs.rmdir(group).catch(() => undefined);
}

/** This process's own group in the v1 cpu hierarchy ("/" on a host, deeper in a container). */
async function ownCpuGroup(): Promise<string | undefined> {
  const lines = await fs.readFile('/proc/self/cgroup', 'utf8').catch(() => '');
  for (const line of lines.split('\n')) {
    const [, controllers, group] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers?.split(',').includes('cpu')) return group;
  }
  return undefined;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
