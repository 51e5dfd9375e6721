#!/usr/bin/env node
// Solves the coding task python/leap-year through the session's MCP endpoint (`mcp_url`), by script:
// it lists the workspace, reads calendar_utils.py, writes the Gregorian rule into it, runs the
// task's tests with exec and submits. Any other task is submitted unchanged, so it fails, as it should.
//
// Two ways to give it a session:
//   an open session: ARENA_SANDBOX_MCP_URL and ARENA_SANDBOX_TOKEN (arena-runner sets both for the
//     command of a coding session), or --mcp-url with ARENA_SANDBOX_TOKEN;
//   a pull agent: --api <arena> --agent <id> with ARENA_AGENT_SECRET; it waits for the agent's next
//     coding session (start one as its owner), works it and posts the summary as the result.
// It prints the summary on stdout. It needs Node.js 18 or later and @modelcontextprotocol/sdk.
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const TARGET_FILE = 'calendar_utils.py';
// The one wrong line of the task, and the rule it should state.
const JULIAN_RULE = /^ {4}return year % 4 == 0(?=\r?$)/m;
const GREGORIAN_RULE = '    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)';
const WAIT_FOR_WORK_MS = 10 * 60 * 1000;

const { values: flags } = parseArgs({
  options: { api: { type: 'string' }, agent: { type: 'string' }, 'mcp-url': { type: 'string' } },
});

async function main() {
  if (flags.api && flags.agent) {
    const puller = pullAgent(flags.api.replace(/\/+$/, ''), flags.agent, requiredEnv('ARENA_AGENT_SECRET'));
    const work = await puller.nextCodingSession();
    const summary = await solve(work.sandbox.mcp_url, work.sandbox.token).catch((err) => ({ error: err.message }));
    await puller.postResult(work.work_id, typeof summary === 'string' ? { response: summary } : summary);
    if (typeof summary !== 'string') throw new Error(summary.error);
    console.log(summary);
    return;
  }
  const mcpUrl = flags['mcp-url'] ?? process.env.ARENA_SANDBOX_MCP_URL;
  if (!mcpUrl)
    throw new Error('give --api and --agent (a pull agent), or --mcp-url or ARENA_SANDBOX_MCP_URL (a session)');
  console.log(await solve(mcpUrl, requiredEnv('ARENA_SANDBOX_TOKEN')));
}

/** Works one session through its MCP tools; answers the summary. */
async function solve(mcpUrl, token) {
  const client = new Client({ name: 'solve-leap-year', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const tool = toolsOf(client);
    const listing = await tool('list_files');
    const hasTarget = listing.entries.some((entry) => entry.name === TARGET_FILE && entry.type === 'file');
    const source = hasTarget ? (await tool('read_file', { path: TARGET_FILE })).content : '';
    if (!JULIAN_RULE.test(source)) {
      const score = await tool('submit');
      return `no scripted fix for this task; submitted the workspace unchanged: ${scoreOf(score)}`;
    }
    await tool('write_file', { path: TARGET_FILE, content: source.replace(JULIAN_RULE, GREGORIAN_RULE) });
    const tests = await tool('exec', { command: 'python3 -m unittest discover -s tests -q', timeout_seconds: 60 });
    const score = await tool('submit');
    return `python/leap-year over MCP: applied the Gregorian rule (visible tests exit ${tests.exit_code}); ${scoreOf(score)}`;
  } finally {
    await client.close();
  }
}

/** Calls a tool; its structured result, or its refusal (the arena's sentence) thrown. */
function toolsOf(client) {
  return async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args }, undefined, {
      // A long command or the hidden tests send progress; each one restarts the 60 s timeout.
      onprogress: (progress) => console.error(`${name}: ${progress.message ?? progress.progress}`),
      resetTimeoutOnProgress: true,
    });
    if (result.isError) throw new Error(`${name}: ${result.content.map((part) => part.text).join('')}`);
    return result.structuredContent;
  };
}

const scoreOf = (score) => `hidden tests ${score.tests_passed}/${score.tests_total}, ${score.status}`;

/** A pull agent's two requests: take work (long-polls), post a result. */
function pullAgent(api, agentId, secret) {
  const agentUrl = `${api}/api/agents/${agentId}`;
  const headers = { 'x-arena-secret': secret };
  const postResult = async (workId, body) => {
    const res = await fetch(`${agentUrl}/work/${workId}/result`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`posting the result of ${workId}: HTTP ${res.status} ${await res.text()}`);
  };
  return {
    postResult,
    async nextCodingSession() {
      console.error(`waiting for a coding session of agent ${agentId} (start one as its owner)`);
      for (const giveUpAt = Date.now() + WAIT_FOR_WORK_MS; Date.now() < giveUpAt;) {
        const res = await fetch(`${agentUrl}/work/next?wait=30`, { headers });
        if (res.status === 204) continue;
        if (!res.ok) throw new Error(`work/next: HTTP ${res.status} ${await res.text()}`);
        const work = await res.json();
        if (work.sandbox) return work;
        // A prompt that is not a coding session (the gym's, say) is not this script's to answer.
        await postResult(work.work_id, { error: 'this agent works coding sessions only' });
      }
      throw new Error(`no coding session came within ${WAIT_FOR_WORK_MS / 60_000} minutes`);
    },
  };
}

function requiredEnv(name) {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

main().catch((err) => {
  console.error(`error: ${err.message}`);
  process.exitCode = 1;
});
