/**
 * The clients of a coding session's MCP endpoint that ship with the arena, against the real app,
 * workflows and sandbox: `arena-runner mcp` (a stdio MCP server forwarding to `mcp_url`, for agents
 * that take only local servers), and the example client script, alone as a pull agent and as the
 * command `arena-runner run` starts for a session.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { killRunners, RUNNER_FROM_SOURCE, runToEnd, startRunner } from '../runner/support/cli';
import { eventually } from '../support/wait';
import { feedEntryOf, openCodingSession, startCodingSession, type CodingWork } from './coding-support';
import { callTool, closeClients, closeLater, mcpClient, startMcpArena, TOOL_NAMES, type McpArena } from './mcp-support';

const EXAMPLE = path.resolve(__dirname, '..', '..', 'examples', 'mcp-client', 'solve-leap-year.mjs');
const SOLVED =
  /^python\/leap-year over MCP: applied the Gregorian rule \(visible tests exit 0\); hidden tests 8\/8, passed$/;

let arena: McpArena;

beforeAll(async () => {
  arena = await startMcpArena('mcp-clients', 1000);
}, 120_000);
afterEach(async () => {
  await closeClients();
  killRunners();
});
afterAll(() => arena?.close());

const createAgent = async (name: string): Promise<{ id: number; webhook_secret: string }> =>
  (
    await arena.t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: arena.owner.auth,
      payload: { name, mode: 'pull' },
    })
  ).json();

/** The session's feed entry once it has ended and the agent's summary, which the transcript follows, is in. */
const endedEntry = (agentId: number, id: string) =>
  eventually(
    async () => {
      const entry = await feedEntryOf(arena.t, agentId, id);
      return entry &&
        !['pending', 'running'].includes(entry.status) &&
        /^python\/leap-year/.test(String(entry.response))
        ? entry
        : undefined;
    },
    `${id} to end with its summary`,
    60_000,
  );

/** `arena-runner mcp` for the session, as an MCP client configuration starts it, and the SDK's client on its stdio. */
async function stdioClient(work: CodingWork): Promise<{ client: Client; stderr: () => string }> {
  const [command, ...args] = RUNNER_FROM_SOURCE;
  const transport = new StdioClientTransport({
    command: command!,
    args: [...args, 'mcp', '--session', arena.baseUrl],
    env: { ARENA_SANDBOX_TOKEN: work.sandbox.token },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'stdio-host', version: '1.0.0' });
  await client.connect(transport);
  return { client: closeLater(client), stderr: () => stderr };
}

it('arena-runner mcp serves the arena’s tools over stdio: the same schemas, results, refusals and progress', async () => {
  const work = await openCodingSession(arena.t, arena.owner, arena.agent);
  const { client, stderr } = await stdioClient(work);
  const direct = await mcpClient(work.sandbox.mcp_url, work.sandbox.token);

  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);
  expect(tools).toEqual((await direct.listTools()).tools);

  const listing = await callTool(client, 'list_files');
  expect(listing.structured!.entries).toContainEqual(expect.objectContaining({ name: 'calendar_utils.py' }));
  const missing = await callTool(client, 'read_file', { path: 'missing.py' });
  expect(missing).toEqual({ ...(await callTool(direct, 'read_file', { path: 'missing.py' })), isError: true });

  const heard: number[] = [];
  const ran = await callTool(
    client,
    'exec',
    { command: 'sleep 3; echo through the proxy' },
    { onprogress: ({ progress }) => heard.push(progress), timeout: 2000, resetTimeoutOnProgress: true },
  );
  expect(ran.structured).toMatchObject({ exit_code: 0, stdout: 'through the proxy\n' });
  expect(heard.length).toBeGreaterThanOrEqual(2);

  expect((await callTool(client, 'submit')).structured).toMatchObject({ status: 'failed', tests_total: 8 });
  expect(await callTool(client, 'exec', { command: 'ls' })).toMatchObject({
    isError: true,
    text: 'the session has ended (failed)',
  });
  expect(stderr()).toContain(`serving the coding session at ${arena.baseUrl}/mcp on stdio`);
  expect(stderr()).not.toContain(work.sandbox.token);
}, 60_000);

it('arena-runner mcp does not start on a token the arena refuses (66), nor without one (64)', async () => {
  const refused = await runToEnd(['mcp', '--session', arena.baseUrl], { ARENA_SANDBOX_TOKEN: 'sbx_not-a-token' });
  expect([refused.code, refused.stdout]).toEqual([66, '']);
  expect(refused.stderr).toBe('[arena-runner] error: invalid session token (HTTP 401)\n');

  const missing = await runToEnd(['mcp', '--session', arena.baseUrl]);
  expect(missing.code).toBe(64);
  expect(missing.stderr).toBe('[arena-runner] error: no session token: pass --token or set ARENA_SANDBOX_TOKEN\n');

  const unreachable = await runToEnd(['mcp', '--session', 'http://127.0.0.1:9/'], { ARENA_SANDBOX_TOKEN: 'sbx_x' });
  expect(unreachable.code).toBe(70);
  expect(unreachable.stderr).toMatch(
    /^\[arena-runner\] error: could not reach the arena at http:\/\/127\.0\.0\.1:9\/mcp: /,
  );
});

it('the example client, as a pull agent, solves python/leap-year through mcp_url and posts its summary', async () => {
  const agent = await createAgent('example-mcp-puller');
  const id = await startCodingSession(arena.t, arena.owner, agent.id);
  const example = spawn(process.execPath, [EXAMPLE, '--api', arena.baseUrl, '--agent', String(agent.id)], {
    env: { PATH: process.env.PATH, ARENA_AGENT_SECRET: agent.webhook_secret },
  });
  let stdout = '';
  let stderr = '';
  example.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  example.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise((resolve) => example.on('close', resolve));
  expect({ code, stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  expect(stdout.trim()).toMatch(SOLVED);
  const entry = await endedEntry(agent.id, id);
  expect(entry.status).toBe('passed');
  expect(String(entry.response).split('\n')[0]).toMatch(SOLVED);
}, 60_000);

it('the example client, as the command arena-runner run starts, finds mcp_url and the token in its variables', async () => {
  const agent = await createAgent('example-mcp-runner');
  const runner = startRunner(
    ['run', '--base-url', arena.baseUrl, '--agent', String(agent.id), '--wait', '1', '--', process.execPath, EXAMPLE],
    { ARENA_AGENT_SECRET: agent.webhook_secret },
  );
  const id = await startCodingSession(arena.t, arena.owner, agent.id);
  const entry = await endedEntry(agent.id, id).catch((err: Error) => {
    throw new Error(`${err.message}\nrunner: ${runner.stderr()}`);
  });
  expect(entry.status).toBe('passed');
  expect(String(entry.response).split('\n')[0]).toMatch(SOLVED);
  runner.child.kill('SIGINT');
  expect(await runner.exited).toEqual({ code: 0, signal: null });
}, 60_000);
