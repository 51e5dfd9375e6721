/** `arena-runner sandbox`: one step of a coding session from any program or shell, with exit codes a script can branch on. */
import fs from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Log } from './log';
import { SandboxClient, SandboxStepError, type DirectoryListing, type WorkspaceRead } from './sandbox-client';

/**
 * The helper's own failures. They sit in the range sysexits(3) reserves for such use, away from
 * what commands commonly exit with (0 to 2, 126, 127, 128 + a signal), because `exec` passes the
 * command's code through.
 */
export const SANDBOX_EXIT = {
  usage: 64,
  badInput: 65,
  refused: 66,
  notFound: 67,
  ended: 68,
  stepCap: 69,
  unavailable: 70,
} as const;

const MAX_EXEC_TIMEOUT_SECONDS = 120;

const EXIT_CODES_HELP = `
Exit codes:
  exec      the command's own code (with --json: 0 once the step ran)
  submit    0 when every hidden test passed, 1 otherwise
  64        usage: bad flags, no session address or token, a local file that cannot be read
  65        the arena refused the input (HTTP 400), e.g. a path outside the workspace
  66        the token was refused (HTTP 401, 403)
  67        not found (HTTP 404): no such file, or no such session
  68        the session has ended (HTTP 409)
  69        the session's step cap is used up (HTTP 429)
  70        the sandbox API could not be reached, failed (5xx) or answered something unreadable

The session's address and token come from ARENA_SANDBOX_API and ARENA_SANDBOX_TOKEN, which
arena-runner run and push set for the agent command of a coding session.`;

interface AccessFlags {
  api?: string;
  token?: string;
}

interface ExecFlags extends AccessFlags {
  shell?: string;
  timeout?: number;
  stdinFrom?: string;
  json?: boolean;
}

/**
 * The `sandbox` command tree. Its usage errors are thrown as CommanderError (exitOverride) so that
 * the caller can exit with 64; `done` receives every other exit code.
 */
export function sandboxCommand(log: Log, done: (code: number) => void): Command {
  const usage = (message: string) => {
    log(`error: ${message}`);
    return SANDBOX_EXIT.usage;
  };
  const step = async (flags: AccessFlags, work: (client: SandboxClient) => Promise<number>): Promise<number> => {
    if (!flags.api) {
      return usage('no session address: pass --api or set ARENA_SANDBOX_API (set for the agent command of a session)');
    }
    if (!flags.token) return usage('no session token: pass --token or set ARENA_SANDBOX_TOKEN');
    try {
      return await work(new SandboxClient({ api: flags.api, token: flags.token }));
    } catch (err) {
      if (!(err instanceof SandboxStepError)) throw err;
      log(`error: ${err.message}`);
      return exitCodeOf(err);
    }
  };

  const sandbox = new Command('sandbox')
    .description('work a coding session one step at a time: exec, read, write, ls, submit')
    .exitOverride()
    .enablePositionalOptions()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP);

  withAccess(sandbox.command('exec'))
    .description("run a command in the session's workspace; prints its output, exits with its code")
    .usage('[options] -- <command> [args...]  |  [options] --shell <line>')
    .argument('[argv...]', 'the command and its arguments, after --')
    .option('--shell <line>', "run this line through the sandbox's shell instead")
    .option(
      '--timeout <seconds>',
      `the command's time limit (1-${MAX_EXEC_TIMEOUT_SECONDS}; the arena's default is 60)`,
      timeoutSeconds,
    )
    .option('--stdin-from <file>', "give the command this file's text on stdin (- for this helper's own stdin)")
    .option('--json', 'print the whole result as JSON instead, and exit 0 once the step ran')
    .passThroughOptions()
    .action(async (argv: string[], flags: ExecFlags) => {
      if (flags.shell !== undefined && argv.length > 0) {
        return done(usage('give the command either after -- or with --shell, not both'));
      }
      if (flags.shell === undefined && argv.length === 0) {
        return done(usage('no command: write it after -- (exec -- pytest -q) or pass --shell'));
      }
      const stdin = flags.stdinFrom === undefined ? undefined : await readLocal(flags.stdinFrom);
      if (typeof stdin === 'object') return done(usage(stdin.error));
      done(
        await step(flags, async (client) => {
          const result = await client.exec(flags.shell ?? argv, { timeoutSeconds: flags.timeout, stdin });
          if (flags.json) {
            await print(process.stdout, `${JSON.stringify(result)}\n`);
            return 0;
          }
          await print(process.stdout, result.stdout);
          await print(process.stderr, result.stderr);
          if (result.truncated) log('note: the output was cut at the sandbox output limit');
          return Number.isInteger(result.exit_code) && result.exit_code >= 0 && result.exit_code <= 255
            ? result.exit_code
            : 1;
        }),
      );
    });

  withAccess(sandbox.command('read'))
    .description("print a workspace file's text, or a directory's entries one per line")
    .argument('<path>', 'relative to the workspace root')
    .action(async (path: string, flags: AccessFlags) => {
      done(
        await step(flags, async (client) => {
          const read = await client.read(path);
          await print(process.stdout, read.kind === 'file' ? read.text : entryLines(read.listing));
          return 0;
        }),
      );
    });

  withAccess(sandbox.command('write'))
    .description('create or replace a workspace file with the text on stdin, or of a local file')
    .argument('<path>', 'relative to the workspace root')
    .option('--from <file>', 'send this local file instead of stdin')
    .action(async (path: string, flags: AccessFlags & { from?: string }) => {
      if (flags.from === undefined && process.stdin.isTTY) log("reading the file's text from stdin (end with Ctrl-D)");
      const text = await readLocal(flags.from ?? '-', 'bytes');
      if (!(text instanceof Uint8Array)) return done(usage(text.error));
      done(
        await step(flags, async (client) => {
          await client.write(path, text);
          return 0;
        }),
      );
    });

  withAccess(sandbox.command('ls'))
    .description("list a workspace directory one entry per line, directories ending in '/'")
    .argument('[path]', 'relative to the workspace root', '.')
    .option('--json', 'print the listing as JSON, with types and sizes')
    .action(async (path: string, flags: AccessFlags & { json?: boolean }) => {
      done(
        await step(flags, async (client) => {
          const listing = listingOf(path, await client.read(path));
          await print(process.stdout, flags.json ? `${JSON.stringify(listing)}\n` : entryLines(listing));
          return 0;
        }),
      );
    });

  withAccess(sandbox.command('submit'))
    .description('end the session: the hidden tests run; prints their result, exits 0 only if all passed')
    .action(async (flags: AccessFlags) => {
      done(
        await step(flags, async (client) => {
          const result = await client.submit();
          await print(process.stdout, `${JSON.stringify(result)}\n`);
          return result.status === 'passed' ? 0 : 1;
        }),
      );
    });

  return sandbox;
}

function withAccess(command: Command): Command {
  return command
    .addOption(new Option('--api <url>', "the session's address").env('ARENA_SANDBOX_API').argParser(parseApi))
    .addOption(
      new Option('--token <token>', "the session's token (prefer the variable: others can read argv)").env(
        'ARENA_SANDBOX_TOKEN',
      ),
    );
}

export function exitCodeOf(err: SandboxStepError): number {
  switch (err.status) {
    case undefined:
      return SANDBOX_EXIT.unavailable;
    case 401:
    case 403:
      return SANDBOX_EXIT.refused;
    case 404:
      return SANDBOX_EXIT.notFound;
    case 409:
      return SANDBOX_EXIT.ended;
    case 429:
      return SANDBOX_EXIT.stepCap;
    default:
      return err.status < 500 ? SANDBOX_EXIT.badInput : SANDBOX_EXIT.unavailable;
  }
}

/** `ls` of a file lists the file alone, as `ls` does. */
function listingOf(path: string, read: WorkspaceRead): DirectoryListing {
  if (read.kind === 'dir') return read.listing;
  return { path, entries: [{ name: path, type: 'file', size: Buffer.byteLength(read.text) }] };
}

function entryLines(listing: DirectoryListing): string {
  return listing.entries.map((entry) => `${entry.name}${entry.type === 'dir' ? '/' : ''}\n`).join('');
}

/** A local file's content (`-`: this process's stdin), or why it cannot be read. */
async function readLocal(file: string): Promise<string | { error: string }>;
async function readLocal(file: string, as: 'bytes'): Promise<Uint8Array | { error: string }>;
async function readLocal(
  file: string,
  as: 'text' | 'bytes' = 'text',
): Promise<string | Uint8Array | { error: string }> {
  let bytes: Buffer;
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      bytes = Buffer.concat(chunks);
    } else {
      bytes = await fs.promises.readFile(file);
    }
  } catch (err) {
    return { error: `cannot read ${file === '-' ? 'stdin' : file}: ${(err as Error).message}` };
  }
  return as === 'text' ? bytes.toString('utf8') : bytes;
}

// Written before the process exits: a pipe that is full would otherwise lose the rest.
function print(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (text === '') return Promise.resolve();
  return new Promise((resolve, reject) => stream.write(text, (err) => (err ? reject(err) : resolve())));
}

function parseApi(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError("expected the session's http(s) address");
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError("expected the session's http(s) address");
  }
  return value;
}

function timeoutSeconds(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_EXEC_TIMEOUT_SECONDS) {
    throw new InvalidArgumentError(`--timeout takes a whole number from 1 to ${MAX_EXEC_TIMEOUT_SECONDS}`);
  }
  return Number(value);
}
