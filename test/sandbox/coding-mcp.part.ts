/**
 * A coding session as an MCP server: the SDK's own client on the session's `mcp_url` (Streamable
 * HTTP) against the real app, database, workflows and bubblewrap sandbox. Its tools are the REST
 * steps: the same results, the same refusals word for word, counted and in the transcript alike.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAX_WRITE_BYTES } from '../../services/coding-steps';
import { eventually, until } from '../support/wait';
import { feedEntryOf, openCodingSession, stepOf, type CodingWork } from './coding-support';
import { callTool, closeClients, mcpClient, startMcpArena, TOOL_NAMES, type McpArena } from './mcp-support';

const FIXED = '    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)';
const PROGRESS_EVERY_MS = 1000;
const KEEP_ALIVE_EVERY_MS = 300;

let arena: McpArena;

beforeAll(async () => {
  arena = await startMcpArena('mcp-agent', PROGRESS_EVERY_MS, KEEP_ALIVE_EVERY_MS);
}, 120_000);
afterEach(() => closeClients());
afterAll(() => arena?.close());

const open = (): Promise<CodingWork> => openCodingSession(arena.t, arena.owner, arena.agent);
const connect = (work: CodingWork): Promise<Client> => mcpClient(work.sandbox.mcp_url, work.sandbox.token);
const rest = (work: CodingWork) => stepOf(arena.t, work.sandbox);

it('lists the five steps as tools, each with a JSON Schema for its input and its output', async () => {
  const work = await open();
  expect(work.sandbox.mcp_url).toBe(`${arena.baseUrl}/mcp`);
  const client = await connect(work);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
  for (const tool of tools) {
    expect(tool.inputSchema.type).toBe('object');
    expect(tool.outputSchema?.type).toBe('object');
    expect(tool.description).toBeTruthy();
  }
  const exec = byName.exec!;
  expect(exec.inputSchema.required).toEqual(['command']);
  expect(exec.inputSchema.properties).toMatchObject({
    command: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    timeout_seconds: { type: 'integer', minimum: 1, maximum: 120, default: 60 },
    stdin: { type: 'string' },
  });
  expect(exec.outputSchema?.required).toEqual(['exit_code', 'stdout', 'stderr', 'truncated', 'duration_ms']);
  expect(byName.read_file!.inputSchema.required).toEqual(['path']);
  expect(byName.write_file!.inputSchema.required).toEqual(['path', 'content']);
  expect(byName.list_files!.inputSchema.required ?? []).toEqual([]);
  expect(byName.list_files!.outputSchema?.required).toEqual(['path', 'entries']);
  expect(byName.submit!.outputSchema?.required).toEqual(['status', 'tests_passed', 'tests_total']);
  await rest(work)('POST', 'submit');
});

it('drives python/leap-year to a pass: list, read, write, exec, submit', async () => {
  const work = await open();
  const client = await connect(work);

  const listing = await callTool(client, 'list_files');
  expect(listing.isError).toBe(false);
  expect(listing.structured).toMatchObject({ path: '.' });
  expect(listing.structured!.entries).toContainEqual(
    expect.objectContaining({ name: 'calendar_utils.py', type: 'file' }),
  );
  // The text is the same result as JSON, for a client that reads only text.
  expect(JSON.parse(listing.text)).toEqual(listing.structured);

  const read = await callTool(client, 'read_file', { path: './calendar_utils.py' });
  expect(read.structured).toEqual({
    path: 'calendar_utils.py',
    content: expect.stringContaining('    return year % 4 == 0'),
  });
  const source = read.structured!.content as string;

  const written = await callTool(client, 'write_file', {
    path: 'calendar_utils.py',
    content: source.replace('    return year % 4 == 0', FIXED),
  });
  expect(written).toMatchObject({
    isError: false,
    structured: { path: 'calendar_utils.py', bytes: expect.any(Number) },
  });

  const ran = await callTool(client, 'exec', { command: 'python3 -m unittest discover -s tests -q 2>&1; echo done' });
  expect(ran.structured).toMatchObject({
    exit_code: 0,
    truncated: false,
    stdout: expect.stringMatching(/OK\ndone\n$/),
  });
  const check = await callTool(client, 'exec', {
    command: ['python3', '-c', 'import sys; from calendar_utils import is_leap; print(is_leap(int(sys.stdin.read())))'],
    stdin: '1900',
    timeout_seconds: 30,
  });
  expect(check.structured).toMatchObject({ exit_code: 0, stdout: 'False\n', stderr: '' });
  expect(JSON.parse(check.text)).toEqual(check.structured);

  const submitted = await callTool(client, 'submit');
  expect(submitted.structured).toEqual({ status: 'passed', tests_passed: 8, tests_total: 8 });
  expect((await feedEntryOf(arena.t, arena.agent.id, work.work_id)).status).toBe('passed');
});

it('refuses as the REST steps do, with their detail as the tool error', async () => {
  const work = await open();
  const client = await connect(work);
  const step = rest(work);
  const big = 'b'.repeat(MAX_WRITE_BYTES + 1);
  // Each tool call beside the REST request that does the same: [tool, its arguments, method, what].
  const refusals: Array<[string, Record<string, string>, 'GET' | 'PUT', string, object?]> = [
    ['read_file', { path: '../etc/passwd' }, 'GET', 'files?path=../etc/passwd'],
    ['read_file', { path: '/etc/passwd' }, 'GET', 'files?path=/etc/passwd'],
    ['read_file', { path: 'missing.py' }, 'GET', 'files?path=missing.py'],
    ['list_files', { path: 'nowhere' }, 'GET', 'files?path=nowhere'],
    ['write_file', { path: 'big.txt', content: big }, 'PUT', 'files?path=big.txt', { content: big }],
    ['write_file', { path: '.', content: 'x' }, 'PUT', 'files?path=.', { content: 'x' }],
  ];
  for (const [tool, args, method, what, body] of refusals) {
    const answered = await step(method, what, body);
    expect(answered.statusCode).toBeGreaterThanOrEqual(400);
    const refused = await callTool(client, tool, args);
    const called = `${tool} ${JSON.stringify(args).slice(0, 60)}`;
    expect({ called, isError: refused.isError, text: refused.text, meta: refused.meta }).toEqual({
      called,
      isError: true,
      text: answered.json().detail,
      meta: { http_status: answered.statusCode },
    });
  }
  // A folder is not a file: the one refusal of MCP's own, since REST reads a folder as its listing.
  expect(await callTool(client, 'read_file', { path: 'tests' })).toMatchObject({
    isError: true,
    text: 'tests is a folder: list it with list_files',
  });
  // Input its schema refuses is a tool error too, never an HTTP failure.
  const bad = await callTool(client, 'exec', { command: 'true', timeout_seconds: 500 });
  expect(bad).toMatchObject({ isError: true, text: expect.stringContaining('timeout_seconds') });

  // Once the session has ended, every step is refused as REST refuses it.
  await callTool(client, 'submit');
  const restAfter = await step('POST', 'exec', { command: 'ls' });
  expect(restAfter.json().detail).toMatch(/^the session has ended \(failed\)$/);
  for (const [tool, args] of [
    ['exec', { command: 'ls' }],
    ['read_file', { path: 'calendar_utils.py' }],
    ['submit', {}],
  ] as const) {
    expect(await callTool(client, tool, args)).toMatchObject({
      isError: true,
      text: restAfter.json().detail,
      meta: { http_status: 409 },
    });
  }
});

it('answers a missing or wrong token 401 with {detail}, and GET or DELETE 405', async () => {
  const work = await open();
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const post = (headers: Record<string, string>) =>
    fetch(work.sandbox.mcp_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(initialize),
    });
  for (const [headers, detail] of [
    [{}, 'a session token (Authorization: Bearer) is required'],
    [{ authorization: 'Bearer sbx_not-a-real-token' }, 'invalid session token'],
    [{ authorization: `Bearer ${work.sandbox.token.slice(0, -2)}xx` }, 'invalid session token'],
    [{ authorization: 'Basic abc' }, 'invalid session token'],
  ] as const) {
    const res = await post(headers);
    expect([res.status, await res.json()]).toEqual([401, { detail }]);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="arena"');
  }
  const refused = mcpClient(work.sandbox.mcp_url, 'sbx_wrong');
  await expect(refused).rejects.toBeInstanceOf(StreamableHTTPError);
  await expect(refused).rejects.toMatchObject({ code: 401, message: expect.stringContaining('invalid session token') });

  const ok = await post({ authorization: `Bearer ${work.sandbox.token}` });
  expect(ok.status).toBe(200);
  expect(ok.headers.get('content-type')).toBe('text/event-stream');
  expect(ok.headers.get('x-content-type-options')).toBe('nosniff');
  expect(ok.headers.get('x-request-id')).toBeTruthy();
  await ok.body?.cancel();

  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(work.sandbox.mcp_url, {
      method,
      headers: { authorization: `Bearer ${work.sandbox.token}` },
    });
    expect([res.status, res.headers.get('allow'), await res.json()]).toEqual([
      405,
      'POST',
      { detail: `${method} is not allowed on /mcp; it answers POST` },
    ]);
  }
  await rest(work)('POST', 'submit');
});

it('counts steps over MCP with the REST ones, and writes them in the transcript alike', async () => {
  const work = await open();
  const client = await connect(work);
  await rest(work)('GET', 'files?path=.');
  await callTool(client, 'read_file', { path: 'calendar_utils.py' });
  await callTool(client, 'exec', { command: ['echo', 'over mcp'] });
  await rest(work)('POST', 'exec', { command: ['echo', 'over rest'] });
  await callTool(client, 'submit');
  const entry = await feedEntryOf(arena.t, arena.agent.id, work.work_id);
  const transcript = String(entry.response);
  expect(transcript).toMatch(/~~~tool_call\nread \.\n~~~[\s\S]*~~~tool_call\nread calendar_utils\.py\n/);
  expect(transcript).toMatch(/over mcp[\s\S]*over rest/);
  expect(transcript).toMatch(/in 4 steps\.$/);
});

it('sends progress while a long command runs, which keeps a client that resets its timeout on it waiting', async () => {
  const work = await open();
  const client = await connect(work);
  const heard: Array<{ progress: number; message?: string }> = [];
  const ran = await callTool(
    client,
    'exec',
    { command: 'sleep 4; echo woke' },
    // Shorter than the command: only progress keeps the call alive.
    { onprogress: (progress) => heard.push(progress), timeout: 2500, resetTimeoutOnProgress: true },
  );
  expect(ran.structured).toMatchObject({ exit_code: 0, stdout: 'woke\n' });
  expect(heard.length).toBeGreaterThanOrEqual(2);
  expect(heard[0]!.message).toMatch(/^exec running for \d+ s$/);
  for (let i = 1; i < heard.length; i++) expect(heard[i]!.progress).toBeGreaterThan(heard[i - 1]!.progress);
  await callTool(client, 'submit');
}, 60_000);

const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
  arena.t.orm.em.fork().getConnection().execute<T[]>(query, params);

/** The session's exec steps as recorded: what each ran, its result and how long it took. */
const execSteps = (work: CodingWork) =>
  sql<{ n: number; request: { command: string }; result: Record<string, unknown>; duration_ms: number }>(
    `select n, request, result, duration_ms from coding_steps
     where session_id = ? and kind = 'exec' and n is not null order by n`,
    [Number(work.work_id.split('-')[1])],
  );

/** Starts an exec through the client and resolves `running` once its progress says it runs (not queued). */
function execUntilRunning(client: Client, command: string, signal?: AbortSignal) {
  let running!: () => void;
  const started = new Promise<void>((resolve) => (running = resolve));
  const heard: string[] = [];
  const call = callTool(
    client,
    'exec',
    { command, timeout_seconds: 120 },
    {
      signal,
      timeout: 120_000,
      onprogress: ({ message }) => {
        heard.push(message ?? '');
        if (/^exec running for/.test(message ?? '')) running();
      },
    },
  );
  // A rejected call is the test's to await; until then it must not count as unhandled.
  call.catch(() => undefined);
  return { call, started, heard };
}

describe('steps follow their client', () => {
  it('stops a running step whose call the client cancels, and the next call runs at once', async () => {
    const work = await open();
    const client = await connect(work);
    const cancel = new AbortController();
    const long = execUntilRunning(client, 'sleep 60; echo never', cancel.signal);
    await long.started;
    cancel.abort('the user gave up');
    await expect(long.call).rejects.toThrow();

    // Without the cancellation it would wait out the minute behind the dropped command.
    const next = await callTool(client, 'exec', { command: 'echo next' }, { timeout: 20_000 });
    expect(next.structured).toMatchObject({ exit_code: 0, stdout: 'next\n' });
    const [stopped, after] = await execSteps(work);
    expect(stopped!.request.command).toBe('sleep 60; echo never');
    expect(stopped!.result).toMatchObject({ cancelled: true, stdout: '' });
    expect(stopped!.result.exit_code).not.toBe(0);
    expect(stopped!.duration_ms).toBeLessThan(30_000);
    expect(after!.result).toMatchObject({ stdout: 'next\n' });
    await rest(work)('POST', 'submit');
    // The transcript says why it stopped.
    const entry = await feedEntryOf(arena.t, arena.agent.id, work.work_id);
    expect(entry.response).toContain('stopped: the client cancelled the call');
  }, 60_000);

  it('reports a call that waits behind an earlier step as queued; cancelled there, its step never runs nor counts', async () => {
    const work = await open();
    const client = await connect(work);
    const first = execUntilRunning(client, 'sleep 3; echo first');
    await first.started;
    const cancel = new AbortController();
    const queued = execUntilRunning(client, 'echo skipped', cancel.signal);
    await until(() => queued.heard.length > 0, 'progress of the queued call');
    expect(queued.heard[0]).toMatch(/^exec queued for \d+ s behind an earlier step of this session$/);
    cancel.abort();
    await expect(queued.call).rejects.toThrow();
    expect((await first.call).structured).toMatchObject({ exit_code: 0, stdout: 'first\n' });

    const third = await callTool(client, 'exec', { command: 'echo third' });
    expect(third.structured).toMatchObject({ stdout: 'third\n' });
    expect((await execSteps(work)).map((step) => step.request.command)).toEqual(['sleep 3; echo first', 'echo third']);
    const [counted] = await sql<{ steps: number }>(`select steps from coding_sessions where session_id = ?`, [
      Number(work.work_id.split('-')[1]),
    ]);
    expect(counted!.steps).toBe(2);
    await rest(work)('POST', 'submit');
  }, 60_000);

  it('keeps a quiet stream alive with comments, and stops the step when the connection drops', async () => {
    const work = await open();
    const drop = new AbortController();
    const res = await fetch(work.sandbox.mcp_url, {
      method: 'POST',
      signal: drop.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${work.sandbox.token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'dropped-1',
        method: 'tools/call',
        params: { name: 'exec', arguments: { command: 'sleep 60; echo never', timeout_seconds: 120 } },
      }),
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    // No progress was asked for: only the keep-alive comments break the silence, well inside a
    // client's read timeout.
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let stream = '';
    await until(async () => {
      const { value } = await reader.read();
      stream += decoder.decode(value);
      return (stream.match(/^: keepalive$/gm) ?? []).length >= 2;
    }, 'two keep-alive comments');
    expect(stream).not.toContain('"result"');
    drop.abort();

    const [stopped] = await eventually(async () => {
      const steps = await execSteps(work);
      return steps.length > 0 && steps;
    }, "the dropped call's step to end");
    expect(stopped!.result).toMatchObject({ cancelled: true });
    expect(stopped!.duration_ms).toBeLessThan(30_000);
    await rest(work)('POST', 'submit');
  }, 60_000);
});
