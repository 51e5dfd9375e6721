/**
 * Where the Temporal dev server (a Go program) spends its CPU during a window: `perf record` on
 * its pid, symbolised with `go tool addr2line` (a stripped Go binary keeps its function table).
 * Optional: without perf or Go on the machine the bench says so and goes on.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ProfileEntry } from './cpu-profile';

const run = promisify(execFile);

export interface GoProfile {
  samples: number;
  functions: ProfileEntry[];
  packages: ProfileEntry[];
  /** The share of samples in the kernel (system calls, page faults). */
  kernelPercent: number;
}

export interface GoRecording {
  stop(): Promise<GoProfile | string>;
}

async function which(tool: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/local/go/bin', '/usr/bin'])) {
    const file = path.join(dir, tool);
    if (
      await fs.access(file, fs.constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return file;
  }
  return undefined;
}

/** Groups a Go symbol into its package: `go.temporal.io/server/service/history/api.(*X).y` -> `temporal/service/history/api`. */
export function goPackage(symbol: string): string {
  if (symbol.startsWith('runtime.') || symbol.startsWith('internal/runtime'))
    return 'go runtime (GC, scheduler, stacks)';
  const cut = symbol.replace(/\(.*$/, '');
  const lastSlash = cut.lastIndexOf('/');
  const dot = cut.indexOf('.', lastSlash + 1);
  const pkg = dot > 0 ? cut.slice(0, dot) : cut;
  return pkg
    .replace('go.temporal.io/server/', 'temporal/')
    .replace(/^modernc\.org\/(sqlite|libc).*/, 'modernc.org/$1 (SQLite in Go)');
}

export async function startGoProfile(pid: number, binary: string): Promise<GoRecording> {
  const perf = await which('perf');
  const go = await which('go');
  if (!perf || !go)
    return {
      stop: async () =>
        `not profiled: needs perf and go on PATH (found ${perf ? 'perf' : 'no perf'}, ${go ? 'go' : 'no go'})`,
    };
  const file = path.join(os.tmpdir(), `arena-bench-perf-${pid}-${Date.now()}.data`);
  const recorder: ChildProcess = spawn(
    perf,
    ['record', '-F', '499', '-p', String(pid), '-o', file, '--', 'sleep', '3600'],
    { stdio: 'ignore' },
  );
  await new Promise((r) => setTimeout(r, 500));
  return {
    async stop() {
      recorder.kill('SIGINT');
      await new Promise((resolve) => recorder.once('exit', resolve));
      try {
        const { stdout } = await run(perf, ['script', '-i', file, '-F', 'ip,dso'], { maxBuffer: 256 * 2 ** 20 });
        const ips: string[] = [];
        let kernel = 0;
        for (const line of stdout.split('\n')) {
          const [ip, dso] = line.trim().split(/\s+/);
          if (!ip) continue;
          if (dso?.includes('kernel')) kernel++;
          else ips.push(ip);
        }
        // Symbolise each distinct address once.
        const unique = [...new Set(ips)];
        const { stdout: symbols } = await runWithInput(
          go,
          ['tool', 'addr2line', binary],
          unique.map((ip) => `0x${ip}`).join('\n'),
        );
        const lines = symbols.split('\n');
        const nameOf = new Map(unique.map((ip, i) => [ip, lines[i * 2] ?? '?']));
        const byFunction = new Map<string, number>();
        const byPackage = new Map<string, number>();
        for (const ip of ips) {
          const fn = nameOf.get(ip) ?? '?';
          byFunction.set(fn, (byFunction.get(fn) ?? 0) + 1);
          const pkg = goPackage(fn);
          byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + 1);
        }
        const total = ips.length + kernel;
        const rank = (m: Map<string, number>, top: number) =>
          [...m.entries()]
            .sort((a, b) => b[1] - a[1])
            .slice(0, top)
            .map(([name, n]) => ({ name, percent: Math.round((n / total) * 1000) / 10 }));
        return {
          samples: total,
          functions: rank(byFunction, 15),
          packages: rank(byPackage, 12),
          kernelPercent: Math.round((kernel / Math.max(1, total)) * 1000) / 10,
        };
      } catch (err) {
        return `not profiled: ${(err as Error).message}`;
      } finally {
        await fs.rm(file, { force: true });
      }
    },
  };
}

function runWithInput(command: string, args: string[], input: string): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve({ stdout: Buffer.concat(chunks).toString('utf8') })
        : reject(new Error(`${command} exited with ${code}`)),
    );
    child.stdin.end(`${input}\n`);
  });
}
