/** `arena-runner`: command-line parsing and process signals for the `run`, `push`, `sandbox` and `mcp` subcommands. */
import { constants } from 'node:os';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { parseBaseUrl } from './base-url';
import type { AgentCommand } from './adapter';
import { RunnerFatalError } from './arena-client';
import { CommandEnvError, commandEnvironment, VARIABLE_NAME } from './command-env';
import { stderrLog, type Log } from './log';
import { DEFAULT_WAIT_SECONDS, runPullLoop } from './pull';
import { DEFAULT_PUSH_HOST, DEFAULT_PUSH_PORT, startPushServer } from './push';
import { DEFAULT_TOLERANCE_SECONDS } from './replay-guard';
import { mcpCommand } from './mcp-proxy';
import { SANDBOX_EXIT, sandboxCommand } from './sandbox-cli';

const MAX_WAIT_SECONDS = 50;
const MAX_CONCURRENCY = 64;
const MAX_TOLERANCE_SECONDS = 3600;

interface RunFlags {
  baseUrl?: string;
  agent: string;
  secret?: string;
  concurrency: number;
  wait: number;
  env: string[];
  keepRunning?: boolean;
}

interface PushFlags {
  secret?: string;
  port: number;
  host: string;
  tolerance: number;
  env: string[];
}

/** Parses argv (without node and the script), runs the subcommand and returns the exit code. */
export async function main(argv: string[], log: Log = stderrLog): Promise<number> {
  let exitCode = 0;
  const fail = (message: string) => {
    log(`error: ${message}`);
    exitCode = 1;
  };

  const program = new Command('arena-runner')
    .description('Connects an agent command on this machine to Agent Arena.')
    .enablePositionalOptions()
    .showHelpAfterError('(add --help for usage)');

  program
    .command('run', { isDefault: true })
    // The default, so the arena's run_command (`arena-runner --base-url ... -- <command>`) works as shown.
    .description('pull mode (the default): fetch prompts from the arena, answer them with <command>, post the results')
    .addOption(new Option('--base-url <url>', 'arena URL').env('ARENA_BASE_URL').argParser(parseBaseUrl))
    .requiredOption('--agent <id>', 'agent id', parseAgentId)
    .addOption(
      new Option('--secret <secret>', 'agent secret (prefer the environment variable)').env('ARENA_AGENT_SECRET'),
    )
    .option(
      '--concurrency <n>',
      `prompts run at once (1-${MAX_CONCURRENCY})`,
      intIn('--concurrency', 1, MAX_CONCURRENCY),
      1,
    )
    .option(
      '--wait <seconds>',
      `long-poll wait (0-${MAX_WAIT_SECONDS})`,
      intIn('--wait', 0, MAX_WAIT_SECONDS),
      DEFAULT_WAIT_SECONDS,
    )
    .addOption(envOption())
    .option(
      '--keep-running',
      'start <command> once and keep it: one prompt per line of JSON on its stdin, one answer per line ({"response": ...} or {"error": ...}) on its stdout',
    )
    .argument('<command>', 'agent command: reads the prompt JSON on stdin, prints the answer')
    .argument('[args...]', 'arguments of the agent command')
    .passThroughOptions()
    .addHelpText(
      'after',
      '\nExamples:\n  ARENA_AGENT_SECRET=agsec_... arena-runner run --base-url https://arena.example --agent 42 -- python3 agent.py\n  ARENA_AGENT_SECRET=agsec_... arena-runner run --base-url https://arena.example --agent 42 --keep-running -- python3 line_agent.py',
    )
    .action(async (command: string, args: string[], flags: RunFlags) => {
      if (!flags.baseUrl) return fail('missing arena URL: pass --base-url or set ARENA_BASE_URL');
      if (!flags.secret) return fail('missing agent secret: pass --secret or set ARENA_AGENT_SECRET');
      const agent = agentCommand(command, args, flags.env, flags.secret);
      if (typeof agent === 'string') return fail(agent);
      const stops = stopOnSignals(log);
      try {
        await runPullLoop({
          baseUrl: flags.baseUrl,
          agentId: flags.agent,
          secret: flags.secret,
          command: agent,
          concurrency: flags.concurrency,
          waitSeconds: flags.wait,
          keepRunning: flags.keepRunning === true,
          signal: stops.signal,
          killSignal: stops.killSignal,
          log,
        });
      } catch (err) {
        if (!(err instanceof RunnerFatalError)) throw err;
        fail(err.message);
      } finally {
        stops.dispose();
      }
    });

  program
    .command('push')
    .description('push mode: serve a local webhook that checks signatures and answers with <command>')
    .addOption(
      new Option('--secret <secret>', 'agent secret (prefer the environment variable)').env('ARENA_AGENT_SECRET'),
    )
    .option('--port <port>', 'port to listen on', intIn('--port', 0, 65535), DEFAULT_PUSH_PORT)
    .option('--host <host>', 'address to listen on', DEFAULT_PUSH_HOST)
    .option(
      '--tolerance <seconds>',
      `how far X-Arena-Timestamp may be from this clock (1-${MAX_TOLERANCE_SECONDS}); older deliveries and repeats are refused`,
      intIn('--tolerance', 1, MAX_TOLERANCE_SECONDS),
      DEFAULT_TOLERANCE_SECONDS,
    )
    .addOption(envOption())
    .argument('<command>', 'agent command: reads the prompt JSON on stdin, prints the answer')
    .argument('[args...]', 'arguments of the agent command')
    .passThroughOptions()
    .addHelpText('after', '\nExample:\n  ARENA_AGENT_SECRET=agsec_... arena-runner push --port 8080 -- node agent.js')
    .action(async (command: string, args: string[], flags: PushFlags) => {
      if (!flags.secret) return fail('missing agent secret: pass --secret or set ARENA_AGENT_SECRET');
      const agent = agentCommand(command, args, flags.env, flags.secret);
      if (typeof agent === 'string') return fail(agent);
      const stops = stopOnSignals(log);
      try {
        let server;
        try {
          server = await startPushServer({
            secret: flags.secret,
            command: agent,
            host: flags.host,
            port: flags.port,
            toleranceSeconds: flags.tolerance,
            killSignal: stops.killSignal,
            log,
          });
        } catch (err) {
          return fail(`could not listen on ${flags.host}:${flags.port}: ${(err as Error).message}`);
        }
        log(
          `listening on ${server.url} (set it as the agent's webhook_url, through a tunnel if the arena is not local)`,
        );
        await new Promise<void>((resolve) => stops.signal.addEventListener('abort', () => resolve(), { once: true }));
        await server.close();
        log('stopped');
      } finally {
        stops.dispose();
      }
    });

  program.addCommand(sandboxCommand(log, (code) => (exitCode = code)));
  program.addCommand(mcpCommand(log, (code) => (exitCode = code)));

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    // Only `sandbox` and `mcp` throw their usage errors (commander has printed them): they exit 64, not 1.
    if (!(err instanceof CommanderError)) throw err;
    return err.exitCode === 0 ? 0 : SANDBOX_EXIT.usage;
  }
  return exitCode;
}

/** The command with the environment it may see; a string says why it cannot run without exposing the secret. */
function agentCommand(command: string, args: string[], pass: string[], secret: string): AgentCommand | string {
  // The runner's own argv is the owner's business; the command's is readable by the command itself.
  if ([command, ...args].some((arg) => arg.includes(secret))) {
    return 'the agent command arguments contain the agent secret; give it no secret (the runner keeps it)';
  }
  try {
    return { command, args, env: commandEnvironment(process.env, { secret, pass }) };
  } catch (err) {
    if (err instanceof CommandEnvError) return err.message;
    throw err;
  }
}

function envOption(): Option {
  const help =
    'pass this variable of the runner environment to the command (repeatable); it gets only PATH, HOME, locale, TZ, temp dirs and the prompt variables otherwise';
  return new Option('--env <name>', help).argParser(collectVariableName).default([], 'none');
}

// A name only: a value on the command line would be in the process list for anyone to read.
function collectVariableName(value: string, previous: string[]): string[] {
  if (!VARIABLE_NAME.test(value)) {
    throw new InvalidArgumentError(
      '--env takes a variable name; set its value in the runner environment (NAME=value arena-runner ...)',
    );
  }
  return [...previous, value];
}

/**
 * First SIGINT/SIGTERM: stop taking prompts and let running ones finish. Commands run in their own
 * process group, so a Ctrl-C in the terminal reaches only the runner. The second signal kills them
 * and exits at once, with the conventional 128 + signal number.
 */
function stopOnSignals(log: Log): { signal: AbortSignal; killSignal: AbortSignal; dispose(): void } {
  const stop = new AbortController();
  const kill = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (!stop.signal.aborted) {
      log(`${name}: stopping; running prompts finish first (send it again to stop at once)`);
      stop.abort();
      return;
    }
    log(`${name} again: killing running commands`);
    kill.abort();
    process.exit(128 + constants.signals[name]);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: stop.signal,
    killSignal: kill.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

function parseAgentId(value: string): string {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected the numeric agent id');
  return value;
}

function intIn(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`${flag} takes a whole number from ${min} to ${max}`);
    }
    return Number(value);
  };
}
