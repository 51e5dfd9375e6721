/**
 * `arena-runner mcp`'s parts that need no arena: where `--session` points, the session's MCP address
 * in the payload and in the agent command's variables, and the usage errors (64). The proxy itself
 * runs against the real app in test/sandbox/coding-mcp-clients.part.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../../runner/src/cli';
import { mcpUrlOf } from '../../../runner/src/mcp-proxy';
import { parseSandboxSession, sandboxEnv } from '../../../runner/src/sandbox-session';
import { RUNNER_FROM_SOURCE, runToEnd } from '../../runner/support/cli';

const session = {
  session_id: 'sandbox-9',
  api: 'https://arena.example/api/agents/3/sandbox/sandbox-9',
  token: 'sbx_t',
  expires_at: '2026-11-26T08:00:00.000Z',
  max_steps: 40,
};

describe('--session', () => {
  it.each([
    ['https://arena.example', 'https://arena.example/mcp'],
    ['https://arena.example/', 'https://arena.example/mcp'],
    ['http://127.0.0.1:8080/arena', 'http://127.0.0.1:8080/arena/mcp'],
    ['https://arena.example/mcp', 'https://arena.example/mcp'],
    ['https://arena.example/mcp/', 'https://arena.example/mcp'],
  ])('%s is served from %s', (given, mcpUrl) => {
    expect(mcpUrlOf(given)).toBe(mcpUrl);
  });

  it.each(['arena.example', 'ftp://arena.example'])('refuses %s', (given) => {
    expect(() => mcpUrlOf(given)).toThrow(/expected an http\(s\) URL/);
  });
});

describe("the session's mcp_url", () => {
  it('is kept from the payload and handed to the agent command as ARENA_SANDBOX_MCP_URL', () => {
    const parsed = parseSandboxSession({ ...session, mcp_url: 'https://arena.example/mcp' });
    expect(parsed).toEqual({ ok: true, session: { ...session, mcp_url: 'https://arena.example/mcp' } });
    expect(parsed.ok && sandboxEnv(parsed.session)).toMatchObject({
      ARENA_SANDBOX_MCP_URL: 'https://arena.example/mcp',
      ARENA_SANDBOX_TOKEN: 'sbx_t',
    });
  });

  it('may be missing (an arena from before it), but not wrong', () => {
    const parsed = parseSandboxSession(session);
    expect(parsed).toEqual({ ok: true, session });
    expect(parsed.ok && sandboxEnv(parsed.session)).not.toHaveProperty('ARENA_SANDBOX_MCP_URL');
    expect(parseSandboxSession({ ...session, mcp_url: 'not a url' })).toEqual({
      ok: false,
      reason: 'sandbox.mcp_url is missing or invalid',
    });
  });
});

describe('arena-runner mcp without what it needs', () => {
  const run = async (args: string[]) => {
    const lines: string[] = [];
    const code = await main(args, (line) => lines.push(line));
    return { code, lines };
  };

  it('exits 64, saying what is missing', async () => {
    expect(await run(['mcp', '--token', 'sbx_t'])).toEqual({
      code: 64,
      lines: ['error: no arena address: pass --session or set ARENA_SANDBOX_MCP_URL'],
    });
    expect(await run(['mcp', '--session', 'https://arena.example'])).toEqual({
      code: 64,
      lines: ['error: no session token: pass --token or set ARENA_SANDBOX_TOKEN'],
    });
  });
});

describe('the MCP SDK', () => {
  // Prints every package the runner loads once it exits, so a test can see what a command pulled in.
  const preload = path.join(os.tmpdir(), `arena-runner-loads-${process.pid}.cjs`);
  beforeAll(() =>
    fs.writeFileSync(
      preload,
      `const Module = require('node:module'); const seen = new Set(); const load = Module._load;
       Module._load = function (request, ...rest) { seen.add(request); return load.call(this, request, ...rest); };
       process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify([...seen]) + '\\n'));`,
    ),
  );
  afterAll(() => fs.rmSync(preload, { force: true }));
  const loads = async (args: string[], env: NodeJS.ProcessEnv) => {
    const [node, ...runner] = RUNNER_FROM_SOURCE;
    const run = await runToEnd(args, env, '', [node!, '--require', preload, ...runner]);
    return JSON.parse(/^LOADED (.*)$/m.exec(run.stderr)![1]!) as string[];
  };
  const sdk = (loaded: string[]) => loaded.filter((name) => name.startsWith('@modelcontextprotocol/'));

  it('is loaded by `mcp` alone: the `sandbox` helper an agent calls every step starts without it', async () => {
    const unreachable = {
      ARENA_SANDBOX_API: 'http://127.0.0.1:9/api/agents/1/sandbox/s',
      ARENA_SANDBOX_TOKEN: 'sbx_t',
    };
    const helper = await loads(['sandbox', 'ls'], unreachable);
    expect(helper).toContain('undici');
    expect(sdk(helper)).toEqual([]);
    expect(sdk(await loads(['mcp', '--session', 'http://127.0.0.1:9', '--token', 'sbx_t'], {}))).not.toEqual([]);
  });
});
