/** `npm run bench [-- --quick] [--only push,deadlines,reads,pull,scale,boards,sandbox,humaneval,protocols]`: brings up the stack, runs the figures, writes and prints the results. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Command, Option } from 'commander';
import { FULL, QUICK, type BenchProfile } from './config';
import { runDeadlineFigure } from './deadlines/deadline-figure';
import { startEngineBaseline, type EngineBaseline } from './engine/engine';
import { ApiClient } from './lib/api-client';
import { benchPool } from './lib/db';
import { runPullFigure } from './pull/pull-figure';
import { startFleet, type Fleet } from './push/fleet';
import { runPushFigure } from './push/push-figure';
import { runReadsFigure } from './reads/reads-figure';
import { runScaleFigure } from './scale/scale-figure';
import { runBoardsFigure } from './boards/boards-figure';
import { runHumanEvalFigure } from './sandbox/humaneval-figure';
import { runSandboxFigure } from './sandbox/sandbox-figure';
import { runCostFigure } from './engine/cost-figure';
import { runProtocolsFigure } from './protocols/protocols-figure';
import { createProgress } from './report/progress';
import { createStageProfiler, type StageProfiler } from './report/stage-profiler';
import { writeResults, type BenchResults } from './report/results';
import { figuresText } from './report/table';
import { REPO } from './stack/child';
import { startStack } from './stack/stack';

const FIGURES = ['push', 'deadlines', 'reads', 'pull', 'scale', 'boards', 'sandbox', 'humaneval', 'protocols'] as const;
type FigureName = (typeof FIGURES)[number];

interface Options {
  quick?: boolean;
  only?: FigureName[];
  out: string;
  profile?: boolean;
  keep?: boolean;
  embedded?: boolean;
  apiNodeArgs?: string;
  note?: string;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

async function main(): Promise<void> {
  const program = new Command()
    .name('bench')
    .description(
      'Agent Arena benchmarks: push throughput and overhead, long-poll capacity, deadline accuracy, reads and judging at scale, each against a baseline measured in the same run.',
    )
    .option('--quick', 'smaller runs that finish in under two minutes')
    .addOption(
      new Option('--only <figures>', `comma-separated subset of ${FIGURES.join(', ')}`).argParser((v) => {
        const names = v.split(',').map((s) => s.trim());
        for (const n of names)
          if (!(FIGURES as readonly string[]).includes(n))
            throw new Error(`unknown figure ${n}; known: ${FIGURES.join(', ')}`);
        return names as FigureName[];
      }),
    )
    .option('--out <dir>', 'where the results are written', path.join(REPO, 'bench', 'results'))
    .option(
      '--profile',
      "profile the API, the worker and the Temporal server during the arena's push stages (slows them down: for finding where the time goes, not for the figures)",
    )
    .option('--keep', 'keep the temporary data folder (server and process logs) after the run')
    .option(
      '--embedded',
      'run the API in the worker process on its connection, as npm start does (eager workflow start); not with the pull figure, which restarts the API',
    )
    .option(
      '--api-node-args <flags>',
      'extra node flags for the API process alone, e.g. "--max-semi-space-size=2" (trying V8 settings)',
    )
    .option('--note <text>', 'a sentence for the report, e.g. what else ran on the machine');
  program.parse();
  const opts = program.opts<Options>();
  const profile: BenchProfile = opts.quick ? QUICK : FULL;
  const only = new Set<FigureName>(opts.only ?? FIGURES);
  if (opts.embedded && only.has('pull'))
    program.error('--embedded cannot run the pull figure (it restarts the API alone); add --only');
  const started = new Date();
  const [loadBefore = 0] = os.loadavg();
  const progress = createProgress();
  progress.log(`${profile.name} run: ${[...only].join(', ')}`);

  const stack = await startStack({
    log: (line) => progress.log(line),
    keepDir: opts.keep,
    embedded: opts.embedded,
    apiNodeArgs: opts.apiNodeArgs?.split(/\s+/).filter(Boolean),
    nodeArgs: opts.profile ? ['--inspect=127.0.0.1:0'] : undefined,
  });
  const results: BenchResults = { run: undefined as unknown as BenchResults['run'], figures: [] };
  const api = new ApiClient(stack.apiUrl, { connections: 64 });
  const pool = benchPool(stack.databaseUrl);
  let engine: EngineBaseline | undefined;
  let fleet: Fleet | undefined;
  let profiler: StageProfiler | undefined;
  try {
    const account = await api.register();
    const ctx = { stack, api, key: account.apiKey, pool, profile, progress };
    if (only.has('push') || only.has('deadlines') || only.has('reads')) {
      progress.log('starting the push agents (their gyms run first) and the engine baseline');
      [fleet, engine] = await Promise.all([
        startFleet(stack, api, account.apiKey, { answering: profile.push.agents, silent: profile.deadlines.agents }),
        only.has('push') || only.has('deadlines') ? startEngineBaseline(stack) : undefined,
      ]);
    }
    if (only.has('push')) {
      profiler ??= opts.profile ? await createStageProfiler(stack) : undefined;
      results.push = await runPushFigure({ ...ctx, engine: engine!, fleet: fleet!, profiler });
      results.figures.push(...results.push.figures);
    }
    if (only.has('deadlines')) {
      const d = profile.deadlines;
      const sustained = results.push
        ? Math.max(...results.push.stages.arena.map((s) => s.achieved).filter(Number.isFinite))
        : Infinity;
      const rate = Math.max(d.minRate, Math.min(d.rate, Math.floor(sustained / 2)));
      results.deadlines = await runDeadlineFigure({ ...ctx, engine: engine!, fleet: fleet!, rate });
      results.figures.push(...results.deadlines.figures);
    }
    await engine?.stop();
    engine = undefined;
    if (only.has('reads')) {
      profiler ??= opts.profile ? await createStageProfiler(stack) : undefined;
      results.reads = await runReadsFigure({ ...ctx, fleet: fleet!, profiler });
      results.figures.push(...results.reads.figures);
    }
    await fleet?.stop();
    fleet = undefined;
    profiler?.close();
    profiler = undefined;
    if (only.has('pull')) {
      results.pull = await runPullFigure({ ...ctx, userId: account.userId });
      results.figures.push(...results.pull.figures);
    }
    // One delivery at a time on an idle stack: before the scale figure grows the database.
    if (only.has('protocols')) {
      results.protocols = await runProtocolsFigure(ctx);
      results.figures.push(...results.protocols.figures);
    }
    // What the deliveries above cost the engine, read from their histories (when the push figure ran).
    const cost = await runCostFigure({ client: stack.temporal, progress });
    if (cost) {
      results.cost = cost;
      results.figures.push(...cost.figures);
    }
    // Last: it grows the database to a million answers, which every figure after it would read.
    if (only.has('scale')) {
      results.scale = await runScaleFigure(ctx);
      results.figures.push(...results.scale.figures);
    }
    if (only.has('boards')) {
      results.boards = await runBoardsFigure(ctx);
      results.figures.push(...results.boards.figures);
    }
    if (only.has('sandbox')) {
      results.sandbox = await runSandboxFigure(ctx);
      results.figures.push(...results.sandbox.figures);
    }
    if (only.has('humaneval')) {
      results.humaneval = await runHumanEvalFigure(ctx);
      results.figures.push(...results.humaneval.figures);
    }
  } finally {
    progress.stop();
    profiler?.close();
    await engine?.stop();
    await fleet?.stop();
    await api.close();
    await pool.end();
    await stack.stop();
  }

  results.run = {
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    profile: profile.name,
    commit: git(['rev-parse', 'HEAD']),
    dirty: git(['status', '--porcelain']) !== '',
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      temporalCli: stack.temporalCliVersion,
      loadBefore,
      loadAfter: os.loadavg()[0] ?? 0,
    },
    note:
      [
        opts.embedded ? 'Embedded: the API ran in the worker process, on its connection (eager workflow start).' : '',
        opts.apiNodeArgs ? `The API ran with node ${opts.apiNodeArgs}.` : '',
        opts.note ?? '',
      ]
        .filter(Boolean)
        .join(' ') || undefined,
  };
  const written = await writeResults(opts.out, results);
  console.log(`\n${figuresText(results.figures)}\n`);
  console.log(
    `Results: ${path.relative(process.cwd(), written.markdown)}, ${path.relative(process.cwd(), written.json)}${written.charts.map((c) => `, ${path.relative(process.cwd(), c)}`).join('')}`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
