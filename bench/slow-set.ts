/**
 * `npm run test:slow`: the slow set (the jest project `slow`, test/slow/), one file at a time, then
 * one line appended to bench/results/slow-set.md: the commit (with "+ changes" when the work tree
 * differs from it), the date, pass or fail, and the time the run took. Arguments after `--` go to
 * jest; a run given any records nothing, since it is not the whole set.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(ROOT, 'bench', 'results', 'slow-set.md');
const HEADER =
  '# The slow set\n\nOne line per full run of `npm run test:slow` (see the README, "Set up").\n\n' +
  '| commit | date (UTC) | result | time |\n| --- | --- | --- | --- |\n';

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

async function main(): Promise<void> {
  const extra = process.argv.slice(2);
  const started = Date.now();
  const jest = spawn(
    process.execPath,
    [require.resolve('jest/bin/jest'), '--selectProjects', 'slow', '--runInBand', ...extra],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const code = await new Promise<number | null>((resolve) => jest.once('close', resolve));
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  if (extra.length === 0) {
    const commit = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain') ? ' + changes' : '');
    const date = new Date(started).toISOString().slice(0, 16).replace('T', ' ');
    if (!fs.existsSync(RESULTS)) fs.writeFileSync(RESULTS, HEADER);
    fs.appendFileSync(RESULTS, `| ${commit} | ${date} | ${code === 0 ? 'pass' : 'fail'} | ${minutes} min |\n`);
    console.log(`slow set: ${code === 0 ? 'pass' : 'fail'} in ${minutes} min, recorded in bench/results/slow-set.md`);
  }
  process.exit(code ?? 1);
}

void main();
