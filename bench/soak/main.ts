/** `npm run soak [-- --minutes N | --quick]`: the stack under a steady mixed load with faults injected, then the accounting of every delivery. */
import path from 'node:path';
import { Command } from 'commander';
import { runStamp } from '../report/results';
import { REPO } from '../stack/child';
import { writeSoakResults } from './report';
import { FAILED_VERDICTS, SETTLE_VERDICTS } from './settle';
import { runSoak } from './soak';

interface Options {
  minutes: string;
  quick?: boolean;
  out: string;
  keep?: boolean;
  build: boolean;
}

async function main(): Promise<void> {
  const program = new Command()
    .name('soak')
    .description(
      'Agent Arena soak: push and pull agents, sandbox and main prompts, live battles and votes, pages and feeds for N minutes while the worker is killed, the API restarted and PostgreSQL and Temporal stopped; then every delivery is accounted for.',
    )
    .option('--minutes <n>', 'minutes of load', '30')
    .option('--quick', 'a 5-minute run')
    .option('--out <dir>', 'where the results are written', path.join(REPO, 'bench', 'results'))
    .option('--keep', 'keep the temporary data folder (server and process logs) after the run')
    .option('--no-build', 'skip npm run build (dist/ is current)');
  program.parse();
  const opts = program.opts<Options>();
  const minutes = opts.quick ? 5 : Number(opts.minutes);
  if (!(minutes > 0)) program.error(`--minutes must be a positive number, not ${opts.minutes}`);
  const stamp = runStamp(new Date());
  const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
  const { result, loadMs, dir } = await runSoak({ minutes, keepDir: opts.keep, build: opts.build, log });
  const files = await writeSoakResults(opts.out, stamp, result, loadMs);
  for (const d of result.deliveries)
    console.log(
      `${d.kind.padEnd(26)} started ${d.started}, recorded once ${d.recordedOnce}, lost ${d.lost}, recorded twice ${d.recordedTwice}, sent twice ${d.sentTwice}`,
    );
  console.log(
    `Results: ${[files.markdown, files.json, files.chart].map((f) => path.relative(process.cwd(), f)).join(', ')}`,
  );
  const settled = result.settle.deliveries;
  console.log(
    `settling (${Math.round(result.settle.ms / 1000)} s): ${SETTLE_VERDICTS.map((k) => `${settled.filter((d) => d.verdict === k).length} ${k}`).join(', ')}`,
  );
  const v = result.votes;
  console.log(
    `votes: ${v.acknowledged} acknowledged, ${v.battlesVoted} battles voted, ${v.changesNotTwo} with other than two rating changes, ${v.eloMismatches} Elo mismatches`,
  );
  if (opts.keep) console.log(`Data folder kept: ${dir}`);
  const bad =
    result.deliveries.some((d) => d.lost > 0 || d.recordedTwice > 0 || d.sentTwice > 0) ||
    settled.some((d) => FAILED_VERDICTS.includes(d.verdict)) ||
    v.changesNotTwo + v.changesWithoutVote + v.eloMismatches > 0;
  if (bad) {
    console.error('deliveries were lost, overdue or duplicated, or votes miscounted');
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
