/** Memory and CPU of processes (and their descendants) from /proc, for the resource figures and the CPU breakdown. */
import fs from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU time in these ticks on every common platform. */
const TICKS_PER_SECOND = 100;

interface StatLine {
  pid: number;
  ppid: number;
  cpuMs: number;
  reapedMs: number;
}

function readStat(pid: number): StatLine | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may contain spaces and parentheses; fields after the last ')' are fixed.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(rest[1]);
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  // cutime/cstime: children that exited and were reaped (PostgreSQL backends of closed connections).
  const reaped = Number(rest[13]) + Number(rest[14]);
  return {
    pid,
    ppid,
    cpuMs: ((utime + stime) * 1000) / TICKS_PER_SECOND,
    reapedMs: (reaped * 1000) / TICKS_PER_SECOND,
  };
}

/** Resident set size in bytes (VmRSS), or NaN when the process is gone. */
export function rssBytes(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (user + system) of one process, in ms. */
export function cpuMs(pid: number): number {
  return readStat(pid)?.cpuMs ?? Number.NaN;
}

function allStats(): StatLine[] {
  const out: StatLine[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) out.push(stat);
  }
  return out;
}

/**
 * CPU ms of each named process tree: the root and every live descendant, plus what their reaped
 * children used. PostgreSQL runs a process per connection, so its tree is what counts.
 */
export function treeCpuMs(roots: Record<string, number>): Record<string, number> {
  const stats = allStats();
  const children = new Map<number, StatLine[]>();
  for (const s of stats) {
    const list = children.get(s.ppid) ?? [];
    list.push(s);
    children.set(s.ppid, list);
  }
  const byPid = new Map(stats.map((s) => [s.pid, s]));
  const out: Record<string, number> = {};
  for (const [name, root] of Object.entries(roots)) {
    let total = 0;
    const stack = [root];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const pid = stack.pop()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      const stat = byPid.get(pid);
      total += stat ? stat.cpuMs + stat.reapedMs : 0;
      for (const c of children.get(pid) ?? []) stack.push(c.pid);
    }
    out[name] = total;
  }
  return out;
}

/** The first process whose command line contains `needle` (e.g. a data folder), for servers started without a pid to hand. */
export function findPid(needle: string): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const [program = ''] = cmdline;
      // Only the server itself, not a wrapper (setpriv) that passes the same arguments on.
      if (cmdline.some((arg) => arg.includes(needle)) && !program.endsWith('setpriv')) return Number(entry);
    } catch {
      // gone while we looked
    }
  }
  return undefined;
}
