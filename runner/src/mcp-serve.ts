/** The stdio MCP server of `arena-runner mcp` (mcp-proxy.ts), forwarding to the session's endpoint. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { describeNetworkError, detailOf } from './arena-client';
import type { Log } from './log';
import { SANDBOX_EXIT } from './sandbox-cli';

const CLIENT_INFO = { name: 'arena-runner', version: '1.0.0' };

export interface McpProxyOptions {
  /** The session's MCP endpoint: `<arena>/mcp`. */
  mcpUrl: string;
  token: string;
  log: Log;
  /** Stops the proxy (the runner's signals); it stops by itself when stdin ends. */
  signal?: AbortSignal;
}

/** Why the arena could not be reached or refused the session, with the exit code that says which. */
export class McpProxyError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/**
 * Connects to the arena (a refused token or an arena out of reach fails here, before the client is
 * served), then serves stdin and stdout until stdin ends or `signal` aborts.
 */
export async function serveMcpOverStdio({ mcpUrl, token, log, signal }: McpProxyOptions): Promise<void> {
  const arena = new Client(CLIENT_INFO);
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}`, 'user-agent': 'arena-runner/1' } },
  });
  try {
    await arena.connect(transport);
  } catch (err) {
    await arena.close().catch(() => undefined);
    throw connectionError(mcpUrl, err);
  }
  const info = arena.getServerVersion();
  const server = new Server(
    { name: info?.name ?? 'agent-arena-coding-session', version: info?.version ?? '1.0.0' },
    { capabilities: { tools: {} }, instructions: arena.getInstructions() },
  );

  server.setRequestHandler(ListToolsRequestSchema, (request, extra) =>
    arena.listTools(request.params, { signal: extra.signal }),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const progressToken = request.params._meta?.progressToken;
    try {
      const params = { name: request.params.name, arguments: request.params.arguments };
      const result = await arena.callTool(params, CallToolResultSchema, {
        signal: extra.signal,
        // Always asked of the arena, which then reports a long step every few seconds: this side
        // waits it out, and passes the reports on to a client that asked for them.
        onprogress: (progress) => {
          if (progressToken === undefined) return;
          void extra
            .sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken } })
            .catch(() => undefined);
        },
        resetTimeoutOnProgress: true,
      });
      return result as CallToolResult;
    } catch (err) {
      // The call never reached a tool (the arena out of reach, the request cancelled): the agent reads why.
      return { isError: true, content: [{ type: 'text', text: connectionError(mcpUrl, err).message }] };
    }
  });

  const stdio = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => void server.close());
    signal?.addEventListener('abort', () => void server.close(), { once: true });
  });
  await server.connect(stdio);
  log(`serving the coding session at ${mcpUrl} on stdio`);
  await ended;
  await arena.close().catch(() => undefined);
}

/** What went wrong reaching the arena, in the words the `sandbox` helper uses, and its exit code. */
function connectionError(mcpUrl: string, err: unknown): McpProxyError {
  if (err instanceof StreamableHTTPError && err.code !== undefined && err.code > 0) {
    const body = /Error POSTing to endpoint: ([\s\S]*)$/.exec(err.message)?.[1] ?? err.message;
    const status = err.code;
    const code =
      status === 401 || status === 403
        ? SANDBOX_EXIT.refused
        : status >= 500
          ? SANDBOX_EXIT.unavailable
          : SANDBOX_EXIT.badInput;
    return new McpProxyError(`${detailOf(body)} (HTTP ${status})`, code);
  }
  const reason = describeNetworkError(err);
  return new McpProxyError(`could not reach the arena at ${mcpUrl}: ${reason}`, SANDBOX_EXIT.unavailable);
}
