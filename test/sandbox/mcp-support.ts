/**
 * MCP test helpers: a coding arena that listens on a port of its own (its sessions' `mcp_url` is
 * reachable), the MCP SDK's own client on that address, and a tool result read as the client sees it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { freePort } from '../../infra/ports';
import { startCodingArena, type CodingArena } from './coding-support';

export const TOOL_NAMES = ['exec', 'list_files', 'read_file', 'submit', 'write_file'];

export interface McpArena extends CodingArena {
  /** Where the app listens, and what its sessions' `api` and `mcp_url` start with. */
  baseUrl: string;
}

/**
 * A coding arena listening on loopback; `progressIntervalMs` is how often a running tool call sends
 * progress, `keepAliveMs` how often its stream carries a keep-alive comment.
 */
export async function startMcpArena(
  agentName: string,
  progressIntervalMs?: number,
  keepAliveMs?: number,
): Promise<McpArena> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const arena = await startCodingArena(
    // The agent takes only coding sessions here: its gym fails, and is not tried again within the test.
    { ARENA_GYM_RETRY_SECONDS: '3600', ARENA_PUBLIC_URL: baseUrl },
    agentName,
    { mcpProgressIntervalMs: progressIntervalMs, mcpKeepAliveMs: keepAliveMs },
  );
  await arena.t.app.listen({ port, host: '127.0.0.1' });
  return { ...arena, baseUrl };
}

const clients: Client[] = [];

/** The SDK's client, connected to `mcpUrl` with the token as its bearer (closed by closeClients). */
export async function mcpClient(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'arena-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return closeLater(client);
}

/** Keeps a connected client for closeClients. */
export function closeLater(client: Client): Client {
  clients.push(client);
  return client;
}

export async function closeClients(): Promise<void> {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
}

/** A tool call's answer: its structured content, its text, and whether it is a tool error. */
export interface ToolAnswer {
  isError: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
  meta: Record<string, unknown> | undefined;
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options?: Parameters<Client['callTool']>[2],
): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return {
    isError: result.isError === true,
    text,
    structured: result.structuredContent,
    meta: result._meta,
  };
}
