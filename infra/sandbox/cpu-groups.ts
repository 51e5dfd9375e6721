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
   * The arena's groups on this host, named after its sandbox folder (one per arena on a machine); empty
   * scoring groups a stopped worker left are removed.
   */
  static async open(sandboxDir: string, mount = '/sys/fs/cgroup/cpu'): Promise<CpuGroups> {
    const own = await ownCpuGroup();
    const base = path.join(mount, own ?? '/');
    if (!(await exists(path.join(base, 'cpu.shares'))))
      return new CpuGroups(undefined, 'the host has no cgroup v1 cpu controller');
    const key = createHash('sha256').update(path.resolve(sandboxDir)).digest('hex').slice(0, 12);
    const root = path.join(base, `agent-arena-${key}`);
    try {
      await fs.mkdir(path.join(root, 'steps'), { recursive: true });
      await fs.writeFile(path.join(root, 'steps', 'cpu.shares'), String(STEPS_SHARES));
    } catch (err) {
      return new CpuGroups(
        undefined,
        `the worker cannot make cpu control groups (${(err as NodeJS.ErrnoException).code ?? err})`,
      );
    }
    for (const name of await fs.readdir(root).catch(() => [] as string[]))
      if (name.startsWith('scoring-')) await fs.rmdir(path.join(root, name)).catch(() => undefined);
    return new CpuGroups(root);
  }

  /** No groups: CPU is shared as the kernel shares it by default. */
  static none(why: string): CpuGroups {
    return new CpuGroups(undefined, why);
  }

  /** The agents' steps' group. */
  get steps(): string | undefined {
    return this.root && path.join(this.root, 'steps');
  }

  /** A group of its own for the scoring whose judge runs as `judgeUid`; remove it with `close`. */
  async scoring(judgeUid: number): Promise<string | undefined> {
    if (!this.root) return undefined;
    const dir = path.join(this.root, `scoring-${judgeUid}`);
    try {
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, 'cpu.shares'), String(SCORING_SHARES));
      return dir;
    } catch {
      return undefined;
    }
  }

  /** Removes a scoring's group once nothing of it runs (a group with processes left stays, and is removed at the next start). */
  async close(dir: string | undefined): Promise<void> {
    if (dir) await fs.rmdir(dir).catch(() => undefined);
  }

  /** Removes the arena's groups as its worker stops, those still in use by another worker of it on this host excepted. */
  async remove(): Promise<void> {
    if (!this.root) return;
    for (const name of await fs.readdir(this.root, { withFileTypes: true }).catch(() => []))
      if (name.isDirectory()) await fs.rmdir(path.join(this.root, name.name)).catch(() => undefined);
    await fs.rmdir(this.root).catch(() => undefined);
  }
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
