/** Summarises a V8 .cpuprofile: where a process spent its CPU, by function (self time) and by package. */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileEntry {
  name: string;
  /** Share of all samples, in percent. */
  percent: number;
}

export interface ProfileSummary {
  /** Percent of samples that were not idle (the process was running JavaScript or native code). */
  busyPercent: number;
  functions: ProfileEntry[];
  packages: ProfileEntry[];
}

/** Groups a script URL into what a reader recognises: a package, a folder of this repository, or Node itself. */
export function packageOf(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const [first = '', second] = url.slice(nm + 'node_modules/'.length).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  if (url.startsWith('node:')) return 'node';
  const repo = /\/(api|activities|workflows|worker|infra|bench|runner)\//.exec(url);
  return repo ? `${repo[1]}/` : url.replace(/^file:\/\//, '');
}

export function summarizeProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const hits = new Map<number, number>();
  if (profile.samples) for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  else for (const n of profile.nodes) hits.set(n.id, n.hitCount ?? 0);
  let total = 0;
  let idle = 0;
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0;
    if (count === 0) continue;
    total += count;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)' || functionName === '(garbage collector)') {
      if (functionName === '(idle)') idle += count;
      const key = functionName;
      byFunction.set(key, (byFunction.get(key) ?? 0) + count);
      if (functionName !== '(idle)') byPackage.set(functionName, (byPackage.get(functionName) ?? 0) + count);
      continue;
    }
    const pkg = packageOf(url);
    const key = `${functionName || '(anonymous)'} ${pkg}${url && !url.includes('node_modules') ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + count);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + count);
  }
  const busy = total - idle;
  const rank = (m: Map<string, number>, denominator: number) =>
    [...m.entries()]
      .filter(([name]) => name !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, count]) => ({ name, percent: Math.round((count / Math.max(1, denominator)) * 1000) / 10 }));
  return {
    busyPercent: total === 0 ? 0 : Math.round((busy / total) * 1000) / 10,
    // Shares of the busy time: what the process did when it did something.
    functions: rank(byFunction, busy),
    packages: rank(byPackage, busy),
  };
}
