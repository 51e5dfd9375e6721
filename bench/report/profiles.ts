/** Turns the API's and the worker's --cpu-prof files into a short Markdown summary of where their CPU went. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { summarizeProfile, type CpuProfile } from './cpu-profile';
import { markdownTable } from './table';

/** CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile, as Node names them. */
function pidOf(file: string): number {
  return Number(file.split('.')[3]);
}

export async function summarizeProfiles(dir: string, names: Record<number, string>, outFile: string): Promise<string> {
  const files = (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.cpuprofile')).sort();
  const out = ['# Where the CPU went', '', 'Self time by package and by function, as shares of the busy (non-idle) samples of each thread.', ''];
  for (const file of files) {
    const profile = JSON.parse(await fs.readFile(path.join(dir, file), 'utf8')) as CpuProfile;
    const summary = summarizeProfile(profile, 12);
    const seconds = (profile.endTime - profile.startTime) / 1e6;
    if (summary.busyPercent < 1) continue; // threads that only started up
    out.push(`## ${names[pidOf(file)] ?? 'process'} ${pidOf(file)}, thread ${file.split('.')[4]}: busy ${summary.busyPercent}% of ${seconds.toFixed(0)} s`, '');
    out.push(markdownTable(['package', '%'], summary.packages.map((e) => [e.name, e.percent.toFixed(1)])), '');
    out.push(markdownTable(['function', '%'], summary.functions.map((e) => [e.name, e.percent.toFixed(1)])), '');
  }
  await fs.writeFile(outFile, `${out.join('\n')}\n`);
  return outFile;
}
