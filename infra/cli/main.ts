/** `arena` (also `npm run arena --`): operator commands. */
import { Command } from 'commander';
import { ConfigError, loadConfig } from '../config';
import { withDatabase } from './database';
import { addPrompts, CommandError, listFlaggedJudges, listPrompts, retirePrompts, type Print } from './prompts';

/** Parses argv (without node and the script), runs the command and returns the exit code. */
export async function main(argv: string[], print: Print = (line) => console.log(line), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const program = new Command('arena').description('Operator commands for Agent Arena.').showHelpAfterError('(add --help for usage)').exitOverride();
  const db = <T>(work: Parameters<typeof withDatabase<T>>[1]) => withDatabase(loadConfig(env), work);

  const prompts = program.command('prompts').description('the main arena prompt pool');
  prompts
    .command('add <file>')
    .description('add pool prompts from a JSON file (array of {text, category, slug?}) or a text file (blocks separated by ---)')
    .option('--category <name>', 'category for prompts that do not name one')
    .action((file: string, opts: { category?: string }) => db((orm) => addPrompts(orm.em.fork(), file, opts.category, print)));
  prompts
    .command('retire <ids-or-slugs...>')
    .description('never dispatch these prompts again (their answers stay judgeable)')
    .action((refs: string[]) => db((orm) => retirePrompts(orm.em.fork(), refs, print)));
  prompts
    .command('list')
    .description('list pool prompts with their answer and both-bad counts')
    .option('--category <name>', 'only this category')
    .option('--retired', 'list retired prompts instead')
    .action((opts: { category?: string; retired?: boolean }) => db((orm) => listPrompts(orm.em.fork(), opts, print)));
  program
    .command('judges')
    .description('list judges flagged as outliers by the last leaderboard refresh')
    .action(() => db((orm) => listFlaggedJudges(orm.em.fork(), print)));

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
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

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`arena: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
