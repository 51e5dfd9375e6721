/**
 * `arena-runner mcp`: a coding session's MCP tools served over stdio, for agents that take only
 * local MCP servers. A thin proxy to the arena's own endpoint (the session's `mcp_url`, Streamable
 * HTTP, with the session's token): it lists the arena's tools as they are and forwards every call
 * and its progress, so the limits, refusals and record stay the arena's. The proxy itself
 * (mcp-serve.ts, with the MCP SDK) loads only when this command runs: every other command, the
 * `sandbox` helper an agent calls once a step above all, starts without it.
 */
import { Command, Option } from 'commander';
import { parseBaseUrl } from './base-url';
import type { Log } from './log';
import { SANDBOX_EXIT } from './sandbox-cli';

/** The `mcp` subcommand; `done` receives its exit code. Usage errors throw CommanderError, as `sandbox`'s do. */
export function mcpCommand(log: Log, done: (code: number) => void): Command {
  return new Command('mcp')
    .description(
      "serve a coding session's tools (exec, read_file, write_file, list_files, submit) as a stdio MCP server",
    )
    .exitOverride()
    .addOption(
      new Option('--session <url>', "the arena's address, e.g. https://arena.example (or the session's mcp_url)")
        .env('ARENA_SANDBOX_MCP_URL')
        .argParser(mcpUrlOf),
    )
    .addOption(
      new Option('--token <token>', "the session's token (prefer the variable: others can read argv)").env(
        'ARENA_SANDBOX_TOKEN',
      ),
    )
    .addHelpText(
      'after',
      '\nExample (an MCP client configuration starts it):\n  ARENA_SANDBOX_TOKEN=sbx_... arena-runner mcp --session https://arena.example',
    )
    .action(async (flags: { session?: string; token?: string }) => {
      const usage = (message: string) => {
        log(`error: ${message}`);
        done(SANDBOX_EXIT.usage);
      };
      if (!flags.session) return usage('no arena address: pass --session or set ARENA_SANDBOX_MCP_URL');
      if (!flags.token) return usage('no session token: pass --token or set ARENA_SANDBOX_TOKEN');
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const { serveMcpOverStdio, McpProxyError } = await import('./mcp-serve');
      try {
        await serveMcpOverStdio({ mcpUrl: flags.session, token: flags.token, log, signal: stop.signal });
        done(0);
      } catch (err) {
        if (!(err instanceof McpProxyError)) throw err;
        log(`error: ${err.message}`);
        done(err.exitCode);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

/** `--session`: the arena's address, to which `/mcp` is added, or the session's `mcp_url` as it is. */
export function mcpUrlOf(value: string): string {
  const base = parseBaseUrl(value);
  return new URL(base).pathname.endsWith('/mcp') ? base : `${base}/mcp`;
}
