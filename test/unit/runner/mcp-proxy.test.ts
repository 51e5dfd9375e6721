/**
 * `arena-runner mcp`'s parts that need no arena: where `--session` points, the session's MCP address
 * in the payload and in the agent command's variables, and the usage errors (64). The proxy itself
 * runs against the real app in test/sandbox/coding-mcp-clients.test.ts.
 */
import { main } from '../../../runner/src/cli';
import { mcpUrlOf } from '../../../runner/src/mcp-proxy';
import { parseSandboxSession, sandboxEnv } from '../../../runner/src/sandbox-session';

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
